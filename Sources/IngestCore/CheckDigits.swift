/// Check-digit rules shared by every adapter: one implementation each, so a
/// GTIN valid in a RAX feed is valid in a GS1 datasheet too.
public enum GTIN {
    public enum Problem: Error, Sendable, Equatable {
        /// Not 8, 12, 13 or 14 digits.
        case badShape
        case badCheckDigit
    }

    /// Trims, checks the shape and check digit, and returns the GTIN as 14
    /// digits left-padded with zeros.
    public static func normalize(_ text: some StringProtocol) -> Result<String, Problem> {
        let trimmed = String(text).trimmed
        var scratch = trimmed
        return scratch.withUTF8 { digits -> Result<String, Problem> in
            guard [8, 12, 13, 14].contains(digits.count),
                  digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return .failure(.badShape) }
            guard hasValidCheckDigit(digits) else { return .failure(.badCheckDigit) }
            if digits.count == 14 { return .success(trimmed) }
            return .success(String(repeating: "0", count: 14 - digits.count) + trimmed)
        }
    }

    /// Weights 3, 1, 3, … from the rightmost data digit; check = (10 − sum mod 10) mod 10.
    static func hasValidCheckDigit(_ digits: UnsafeBufferPointer<UInt8>) -> Bool {
        var sum = 0
        var weight = 3
        for index in stride(from: digits.count - 2, through: 0, by: -1) {
            sum += Int(digits[index] - 48) * weight
            weight = weight == 3 ? 1 : 3
        }
        return (10 - sum % 10) % 10 == Int(digits[digits.count - 1] - 48)
    }

    /// Numbers that are not globally unique (restricted circulation, ISSN/ISBN,
    /// refunds, coupons): accepted, but worth a `restricted_gtin` warning.
    /// - Parameter gtin14: a GTIN as returned by `normalize`.
    public static func isRestricted(_ gtin14: String) -> Bool {
        var gtin = gtin14
        return gtin.withUTF8 { bytes in
            guard bytes.count == 14 else { return false }
            func digit(_ index: Int) -> Int { Int(bytes[index]) - 48 }
            // A GTIN-8 travels as 000000 + 8 digits.
            if (0..<6).allSatisfy({ digit($0) == 0 }) {
                return digit(6) == 0 || digit(6) == 2
            }
            // Read as GTIN-13: drop the leading indicator/padding digit.
            let prefix3 = digit(1) * 100 + digit(2) * 10 + digit(3)
            return (20...29).contains(prefix3) || (40...49).contains(prefix3)
                || (200...299).contains(prefix3) || (977...984).contains(prefix3)
                || prefix3 / 10 == 99
        }
    }
}

/// The medicines agency's 7-digit package code: six digits plus a check digit
/// that is the last digit of the sum of the six.
public enum PackageCode {
    public static func isValid(_ code: some StringProtocol) -> Bool {
        let digits = Array(code.utf8)
        guard digits.count == 7, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return false }
        let sum = digits.prefix(6).reduce(0) { $0 + Int($1 - 48) }
        return sum % 10 == Int(digits[6] - 48)
    }
}

import Foundation
