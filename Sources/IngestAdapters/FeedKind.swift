/// What a feed's records are: stock offers, or one kind of reference data.
/// It names the feed in reports and manifests (`"kind": "atc"`) and decides
/// where the pipeline sends the records. Open, like `RejectReason`: a kind
/// is a name, and a new one is declared beside its adapter, not added to a
/// closed list every consumer switches over.
public struct FeedKind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let stock = FeedKind(rawValue: "stock")
    public static let pharmacyRegistry = FeedKind(rawValue: "pharmacy_registry")
    public static let reimbursementList = FeedKind(rawValue: "reimbursement_list")
    public static let atc = FeedKind(rawValue: "atc")
    public static let icd10 = FeedKind(rawValue: "icd10")
    public static let gs1 = FeedKind(rawValue: "gs1")
    public static let medicineRegister = FeedKind(rawValue: "medicine_register")
}
