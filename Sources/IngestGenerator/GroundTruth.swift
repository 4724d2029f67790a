/// What an import of a generated folder must report, feed by feed: written
/// beside the feeds folder (never inside it) as `ground-truth.json`.
public struct GroundTruth: Codable, Sendable, Equatable {
    public struct Feed: Codable, Sendable, Equatable {
        public var read = 0
        public var accepted = 0
        public var rejected = 0
        public var rejectsByReason: [String: Int] = [:]
        /// `loaded` or `rejected`.
        public var outcome = "loaded"
        /// Set for one pharmacy's share of a chain file.
        public var pharmacyID: String?

        enum CodingKeys: String, CodingKey {
            case read, accepted, rejected, outcome
            case pharmacyID = "pharmacy_id"
            case rejectsByReason = "rejects_by_reason"
        }

        mutating func accept() {
            read += 1
            accepted += 1
        }

        mutating func reject(_ reason: String) {
            read += 1
            rejected += 1
            rejectsByReason[reason, default: 0] += 1
        }

        /// The whole feed rejected: records rejected on their own keep their
        /// reason, every accepted one counts under the feed's. A feed refused
        /// before its records are looked at (an unsupported version) counts
        /// every record under the feed's reason.
        mutating func rejectWhole(_ reason: String, recordsExamined: Bool = true) {
            if !recordsExamined { rejectsByReason = [:]; accepted = read }
            if accepted > 0 { rejectsByReason[reason, default: 0] += accepted }
            rejected = read
            accepted = 0
            outcome = "rejected"
        }
    }

    public var seed: UInt64
    public var pharmacies: Int
    public var items: Int
    public var badRate: Double
    public var formats: [String]
    /// The importer's reject-rate gate the counts assume (percent).
    public var maxRejectRatePercent: Int
    /// By file name; a chain file's pharmacies by `key(file:pharmacyID:)`.
    public var feeds: [String: Feed]
    /// Files with a wrong-data fault (issue 22), and which: their counts hold
    /// for an import over the first night of the same seed.
    public var wrongData: [String: String] = [:]

    /// The key of one pharmacy's share of a chain file: `file#pharmacy`.
    public static func key(file: String, pharmacyID: String) -> String { "\(file)#\(pharmacyID)" }

    enum CodingKeys: String, CodingKey {
        case seed, pharmacies, items, formats, feeds
        case badRate = "bad_rate", maxRejectRatePercent = "max_reject_rate_percent", wrongData = "wrong_data"
    }
}
