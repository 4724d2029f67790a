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
    ///
    /// Concrete on `String` and free of literals and strides: it runs once per
    /// offer, and the generic version cost over a thousand instructions a call
    /// (callgrind).
    public static func normalize(_ text: String) -> Result<String, Problem> {
        let trimmed = text.trimmed
        var scratch = trimmed
        return scratch.withUTF8 { digits -> Result<String, Problem> in
            switch digits.count {
            case 8, 12, 13, 14: break
            default: return .failure(.badShape)
            }
            for digit in digits where digit < 48 || digit > 57 { return .failure(.badShape) }
            guard hasValidCheckDigit(digits) else { return .failure(.badCheckDigit) }
            if digits.count == 14 { return .success(trimmed) }
            let padding = 14 - digits.count
            return .success(String(unsafeUninitializedCapacity: 14) { gtin14 in
                for index in 0..<padding { gtin14[index] = 48 }
                for (index, digit) in digits.enumerated() { gtin14[padding + index] = digit }
                return 14
            })
        }
    }

    public static func normalize(_ text: some StringProtocol) -> Result<String, Problem> {
        normalize(String(text))
    }

    /// Weights 3, 1, 3, … from the rightmost data digit; check = (10 − sum mod 10) mod 10.
    static func hasValidCheckDigit(_ digits: UnsafeBufferPointer<UInt8>) -> Bool {
        var sum = 0
        var weight = 3
        var index = digits.count - 2
        while index >= 0 {
            sum += Int(digits[index] &- 48) * weight
            weight = 4 - weight
            index -= 1
        }
        return (10 - sum % 10) % 10 == Int(digits[digits.count - 1] &- 48)
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
    /// On the UTF-8 bytes in place: no array per call (once per offer).
    public static func isValid(_ code: String) -> Bool {
        var code = code
        return code.withUTF8 { digits in
            guard digits.count == 7 else { return false }
            var sum = 0
            for (index, digit) in digits.enumerated() {
                guard digit >= 48, digit <= 57 else { return false }
                if index < 6 { sum += Int(digit - 48) }
            }
            return sum % 10 == Int(digits[6] - 48)
        }
    }

    public static func isValid(_ code: some StringProtocol) -> Bool {
        isValid(String(code))
    }
}

import Foundation
