/// A machine-readable reason code, as FEEDS.md names them (`bad_price`, …).
///
/// A struct rather than an enum: adapters of later feeds add their own codes
/// without touching this file, and manifests written by an older importer
/// still decode.
public struct RejectReason: TextCode {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    // Record-level reasons.
    public static let badFieldCount = RejectReason(rawValue: "bad_field_count")
    public static let badPrice = RejectReason(rawValue: "bad_price")
    public static let badQuantity = RejectReason(rawValue: "bad_quantity")
    public static let badPackageCode = RejectReason(rawValue: "bad_package_code")
    public static let badGTIN = RejectReason(rawValue: "bad_gtin")
    public static let badGTINCheckDigit = RejectReason(rawValue: "bad_gtin_check_digit")
    public static let badCoordinates = RejectReason(rawValue: "bad_coordinates")
    public static let badEncoding = RejectReason(rawValue: "bad_encoding")
    public static let badRecordType = RejectReason(rawValue: "bad_record_type")
    public static let missingField = RejectReason(rawValue: "missing_field")
    public static let duplicateKey = RejectReason(rawValue: "duplicate_key")
    public static let lineTooLong = RejectReason(rawValue: "line_too_long")

    // Feed-level reasons: every record of the feed is rejected with them.
    public static let trailerMismatch = RejectReason(rawValue: "trailer_mismatch")
    public static let unsupportedVersion = RejectReason(rawValue: "unsupported_version")
    public static let badHeader = RejectReason(rawValue: "bad_header")
    public static let unsupportedCurrency = RejectReason(rawValue: "unsupported_currency")
    public static let unreadable = RejectReason(rawValue: "unreadable")
}

/// A warning code: the record is kept, but an operator should know.
public struct WarningCode: TextCode {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let restrictedGTIN = WarningCode(rawValue: "restricted_gtin")
    public static let unknownPharmacy = WarningCode(rawValue: "unknown_pharmacy")
    public static let defaultPriceRules = WarningCode(rawValue: "default_price_rules")
}

/// A code the outputs write as its text (`bad_price`, `stale_dropped`):
/// coded as a bare JSON string, ordered and printed by its text. A struct
/// over a string rather than an enum, so later adapters add codes without
/// touching the type, and files written by an older importer still decode.
public protocol TextCode: RawRepresentable<String>, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    init(rawValue: String)
}

extension TextCode {
    public init(from decoder: any Decoder) throws { self.init(rawValue: try decoder.singleValueContainer().decode(String.self)) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
