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

        enum CodingKeys: String, CodingKey {
            case read, accepted, rejected, outcome
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

        /// The whole feed rejected with one reason: every record read counts under it.
        mutating func rejectWhole(_ reason: String) {
            rejectsByReason = read > 0 ? [reason: read] : [:]
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
    public var feeds: [String: Feed]

    enum CodingKeys: String, CodingKey {
        case seed, pharmacies, items, formats, feeds
        case badRate = "bad_rate", maxRejectRatePercent = "max_reject_rate_percent"
    }
}
