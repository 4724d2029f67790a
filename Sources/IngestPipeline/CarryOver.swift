import IngestCore

/// Data kept from the previous snapshot because tonight's input was missing
/// or rejected; listed in the report and the manifest.
public struct CarryOver: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        /// A pharmacy's offers, marked stale.
        case pharmacy
        /// A reference table set (reimbursement list, ATC, ICD-10, GS1, registry).
        case reference
    }

    public var kind: Kind
    /// The pharmacy id, or the reference kind (`reimbursement_list`).
    public var key: String
    public var fromVersion: String
    /// For a pharmacy: the export time of the data kept.
    @NullEncoded public var lastRefresh: String?
    /// True when the data was too old and dropped instead of kept.
    public var dropped: Bool
    @NullEncoded public var offers: Int?

    enum CodingKeys: String, CodingKey {
        case kind, key, dropped, offers
        case fromVersion = "from_version", lastRefresh = "last_refresh"
    }
}
