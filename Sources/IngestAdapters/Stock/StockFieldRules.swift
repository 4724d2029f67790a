import IngestCore

/// The checks every stock adapter applies to the same canonical fields, in
/// one place, so a package code or GTIN valid in one format is valid in all.
enum StockFieldRules {
    struct Problem: Error {
        var reason: RejectReason
        var field: String
        var message: String
    }

    /// What a format calls the descriptive fields, for messages and rejects.
    struct FieldNames {
        var packageCode: String
        var producer: String
        var activeSubstance: String
    }

    /// An item's descriptive fields, checked.
    struct Description {
        var packageCode: String?
        var gtin: (gtin: String, restricted: Bool)?
        var name: String
    }

    /// The descriptive fields every stock format carries, checked in one
    /// order for all of them: package code, GTIN, name, producer, substance.
    /// A format without a package code passes nil.
    static func description(
        packageCode: String?, gtin: String?, name: String?, producer: String?, activeSubstance: String?, fields: FieldNames
    ) throws(Problem) -> Description {
        let checkedPackageCode = try self.packageCode(packageCode, field: fields.packageCode)
        let checkedGTIN = try self.gtin(gtin)
        let checkedName = try required(name, field: "name")
        try printable(producer, field: fields.producer)
        try printable(activeSubstance, field: fields.activeSubstance)
        return Description(packageCode: checkedPackageCode, gtin: checkedGTIN, name: checkedName)
    }

    /// A second record of the same item in one feed: the first one stands.
    static func duplicate(_ aptcode: String) -> Problem {
        Problem(reason: .duplicateKey, field: "aptcode", message: "aptcode \(aptcode) appears earlier in this feed")
    }

    /// Empty is allowed (not a medicine); otherwise 7 digits with a valid check digit.
    static func packageCode(_ text: String?, field: String = "package code") throws(Problem) -> String? {
        guard let code = text?.trimmed, !code.isEmpty else { return nil }
        guard PackageCode.isValid(code) else {
            throw Problem(reason: .badPackageCode, field: field, message: "package code '\(code)' fails its check digit")
        }
        return code
    }

    /// Empty is allowed; otherwise a GTIN as 14 digits. `restricted` tells the caller to warn.
    static func gtin(_ text: String?, field: String = "gtin") throws(Problem) -> (gtin: String, restricted: Bool)? {
        guard let text = text?.trimmed, !text.isEmpty else { return nil }
        switch GTIN.normalize(text) {
        case .success(let normalized): return (normalized, GTIN.isRestricted(normalized))
        case .failure(.badShape): throw Problem(reason: .badGTIN, field: field, message: "GTIN '\(text)' is not 8, 12, 13 or 14 digits")
        case .failure(.badCheckDigit): throw Problem(reason: .badGTINCheckDigit, field: field, message: "GTIN '\(text)' fails its check digit")
        }
    }

    /// A non-negative integer that fits a 64-bit count.
    static func quantity(_ text: String?, field: String = "quantity") throws(Problem) -> Int64 {
        let trimmed = text?.trimmed ?? ""
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int64(trimmed) else {
            throw Problem(reason: .badQuantity, field: field, message: "\(field) '\(text ?? "")' is not a non-negative integer")
        }
        return value
    }

    static func required(_ text: String?, field: String) throws(Problem) -> String {
        guard let value = text?.trimmed, !value.isEmpty else {
            throw Problem(reason: .missingField, field: field, message: "\(field) is empty")
        }
        try printable(value, field: field)
        return value
    }

    /// Text shown to the public: no control characters (tab and line breaks
    /// aside), no byte order mark in mid-text, no U+FFFD left by a lossy
    /// decoder upstream.
    static func printable(_ text: String?, field: String) throws(Problem) {
        guard let text else { return }
        // Fast path on bytes: only a control byte, DEL, or a lead byte 0xEF
        // (the start of U+FEFF and U+FFFD) needs a closer look.
        guard needsCloserLook(text) else { return }
        for scalar in text.unicodeScalars where scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r"
            || scalar == "\u{FEFF}" || scalar == "\u{FFFD}" || scalar == "\u{7F}" {
            // A control character is valid UTF-8 and a fault of the text (FEEDS.md §12, `bad_text`); a stray
            // byte order mark or a replacement character is what a broken decoder left (`bad_encoding`).
            let marker = scalar == "\u{FEFF}" || scalar == "\u{FFFD}"
            throw Problem(reason: marker ? .badEncoding : .badText, field: field,
                          message: "\(field) holds the \(marker ? "marker" : "control") character U+\(String(scalar.value, radix: 16, uppercase: true))")
        }
    }
}

extension StockFieldRules {
    /// A plain loop over the contiguous UTF-8 bytes: the generic
    /// `utf8.contains(where:)` was a tenth of a parse thread's time.
    @inline(__always)
    static func needsCloserLook(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            for byte in bytes where (byte < 0x20 && byte != 9 && byte != 10 && byte != 13) || byte == 0x7F || byte == 0xEF {
                return true
            }
            return false
        }
    }
}

extension FeedOutput where Record == StockOffer {
    mutating func reject(_ problem: StockFieldRules.Problem, line: Int, key: String) {
        reject(line: line, key: key, reason: problem.reason, message: problem.message, field: problem.field)
    }

    /// An accepted offer found, once the feed is sorted, to repeat an
    /// earlier one's aptcode: rejected as the adapters reject a duplicate.
    public mutating func revokeDuplicate(_ offer: StockOffer) {
        let problem = StockFieldRules.duplicate(offer.aptcode)
        revoke(line: offer.line, key: offer.aptcode, reason: problem.reason, message: problem.message, field: problem.field)
    }

    mutating func warnIfRestricted(_ gtin: (gtin: String, restricted: Bool)?, line: Int, key: String) {
        guard let gtin, gtin.restricted else { return }
        warn(line: line, key: key, code: .restrictedGTIN, message: "GTIN \(gtin.gtin) is not globally unique")
    }
}
