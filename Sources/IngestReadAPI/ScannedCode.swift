import IngestCore

/// What a search text may be besides words (READ_API.md, Version 2): a
/// code a person types or a scanner reads. The apps' scanner is the
/// thesis's future work and GS1's whole point: a GTIN in any of its forms,
/// or a GS1 element string whose AI (01) carries it.
struct ScannedCode: Equatable {
    /// The text as an aptcode (upper-case), matched exactly.
    var aptcode: String?
    /// Seven digits: the register's package code.
    var packageCode: String?
    /// A GTIN as the snapshot keeps it: 14 digits.
    var gtin: String?

    /// The readings of `text` worth a lookup; nil when it can be none of them.
    init?(_ text: String) {
        var code = text.trimmed
        // A scanner may send its symbology identifier first (`]d2` DataMatrix, `]C1` GS1-128, `]Q3` QR).
        if code.hasPrefix("]"), code.count > 3 { code = String(code.dropFirst(3)) }
        if let gtin = Self.elementStringGTIN(code) ?? Self.digitalLinkGTIN(code) {
            self.gtin = gtin
            return
        }
        guard !code.isEmpty, code.count <= 32, code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        aptcode = code.uppercased()
        if code.count == 7, code.allSatisfy(\.isNumber) { packageCode = code }
        if code.allSatisfy(\.isNumber), (8...14).contains(code.count) {
            // "With or without leading zeros": any length up to 14, as long as the check digit holds.
            let padded = String(repeating: "0", count: 14 - code.count) + code
            if case .success(let normalized) = GTIN.normalize(padded) { gtin = normalized }
        }
    }

    /// The GTIN of a GS1 Digital Link URI (READ_API.md, Version 3): any
    /// host, the path's `/01/{gtin}` (after any prefix of the resolver's
    /// own), a GTIN-8, -12, -13 or -14 with its check digit; further key
    /// qualifiers (`/10/…`), the query and the fragment are not needed.
    static func digitalLinkGTIN(_ text: String) -> String? {
        let lower = text.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { return nil }
        let afterScheme = text[text.index(text.startIndex, offsetBy: lower.hasPrefix("https://") ? 8 : 7)...]
        let path = afterScheme.drop { $0 != "/" }.prefix { $0 != "?" && $0 != "#" }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard let key = segments.firstIndex(of: "01"), key + 1 < segments.count else { return nil }
        let digits = segments[key + 1]
        guard [8, 12, 13, 14].contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              case .success(let gtin) = GTIN.normalize(String(repeating: "0", count: 14 - digits.count) + digits) else { return nil }
        return gtin
    }

    /// The GTIN of AI (01) at the start of a GS1 element string, written with
    /// brackets (`(01)04740086000124(17)…`) or raw (`0104740086000124` then
    /// further AIs, a DataMatrix's group separator 0x1D among them).
    static func elementStringGTIN(_ text: String) -> String? {
        let digits: Substring
        if text.hasPrefix("(01)") {
            digits = text.dropFirst(4).prefix(14)
        } else if text.hasPrefix("01"), text.count >= 16, text.unicodeScalars.allSatisfy({ $0 == "\u{1D}" || $0.isASCII }) {
            digits = text.dropFirst(2).prefix(14)
        } else {
            return nil
        }
        guard digits.count == 14, digits.allSatisfy(\.isNumber), case .success(let gtin) = GTIN.normalize(String(digits)) else { return nil }
        return gtin
    }
}
