import Foundation
import IngestCore

/// `<version>.manifest.json`: what a snapshot was built from and what it
/// holds (SNAPSHOT.md, "Files and publishing"). Keys are snake_case.

public struct Manifest: Codable, Sendable, Equatable {
    public var version: String
    public var schemaVersion: Int
    /// UTC, ISO 8601.
    public var createdAt: String
    public var importerVersion: String
    public var inputs: [Input]
    public var rowCounts: [String: Int]
    public var rejectCounts: [String: Int]
    public var warningCounts: [String: Int]
    public var snapshot: SnapshotFile
    /// The rejects file beside the manifest (one JSON object a line).
    public var rejectsFile: String
    public var warningsFile: String
    /// True when an operator published past a failed quality gate.
    public var forced: Bool
    /// The gates that failed and were overridden.
    public var forcedGates: [String]
    /// Data kept from an earlier snapshot because tonight's input was missing or rejected.
    public var carriedOver: [CarriedOver]
    /// The first few rejects of each reason (`sampledPerReason`), for a
    /// first look; `rejects_file` has every one. Absent in older manifests.
    public var rejectSample: [Reject]?
    public static let sampledPerReason = 5
    /// The changeset from the version before, written by the night beside
    /// the snapshot (absent on a first night, across schemas, and in older manifests).
    public var changeset: ChangesetFile?
    /// Each ordinary table's content as `rows:digest` (the order-free
    /// `ingest_digest` over every column, in column order), from the publish
    /// check's scans: what a client that applies a changeset checks its copy
    /// against before it commits (SNAPSHOT.md). Absent in older manifests.
    public var contentDigests: [String: String]?

    public struct ChangesetFile: Codable, Sendable, Equatable {
        /// The version it turns into this one.
        public var from: String
        public var file: String
        public var size: Int64
        public var sha256: String

        public init(from: String, file: String, size: Int64, sha256: String) {
            self.from = from
            self.file = file
            self.size = size
            self.sha256 = sha256
        }
    }

    public struct CarriedOver: Codable, Sendable, Equatable {
        /// `pharmacy` or `reference`.
        public var kind: String
        /// Pharmacy id, or the reference kind (`reimbursement_list`).
        public var key: String
        public var fromVersion: String
        public var lastRefresh: String?
        /// Too old: dropped rather than kept.
        public var dropped: Bool
        public var offers: Int?

        public init(kind: String, key: String, fromVersion: String, lastRefresh: String?, dropped: Bool, offers: Int?) {
            self.kind = kind
            self.key = key
            self.fromVersion = fromVersion
            self.lastRefresh = lastRefresh
            self.dropped = dropped
            self.offers = offers
        }

        enum CodingKeys: String, CodingKey {
            case kind, key, dropped, offers
            case fromVersion = "from_version", lastRefresh = "last_refresh"
        }
    }

    /// Explicit snake_case keys: a key strategy would also rewrite the
    /// dictionaries' keys (reason codes), which must stay as they are.
    enum CodingKeys: String, CodingKey {
        case version, inputs, snapshot, forced
        case schemaVersion = "schema_version", createdAt = "created_at", importerVersion = "importer_version"
        case rowCounts = "row_counts", rejectCounts = "reject_counts", warningCounts = "warning_counts"
        case rejectsFile = "rejects_file", warningsFile = "warnings_file"
        case forcedGates = "forced_gates", carriedOver = "carried_over", rejectSample = "reject_sample", changeset
        case contentDigests = "content_digests"
    }

    public struct SnapshotFile: Codable, Sendable, Equatable {
        public var file: String
        public var size: Int64
        public var sha256: String
    }

    /// One file of the feeds folder and what became of it.
    public struct Input: Codable, Sendable, Equatable {
        public var file: String
        public var size: Int64
        public var sha256: String
        public var kind: String?
        public var adapter: String?
        /// `loaded`, `rejected`, `skipped`, `superseded`, `unrecognised`, `carried_over`.
        public var outcome: String
        public var pharmacyId: String?
        public var exportedAt: String?
        public var read: Int
        public var accepted: Int
        public var rejected: Int
        public var rejectsByReason: [String: Int]
        /// Why the whole file (or chain part) was rejected or skipped, as a
        /// code (`not_newer`, `export_in_future`, `ambiguous`, `trailer_mismatch`).
        public var reason: String?
        public var message: String?

        enum CodingKeys: String, CodingKey {
            case file, size, sha256, kind, adapter, outcome, read, accepted, rejected, reason, message
            case pharmacyId = "pharmacy_id", exportedAt = "exported_at", rejectsByReason = "rejects_by_reason"
        }

        public init(file: String, size: Int64, sha256: String, kind: String?, adapter: String?, outcome: String,
                    pharmacyId: String?, exportedAt: String?, read: Int, accepted: Int, rejected: Int,
                    rejectsByReason: [String: Int], reason: String? = nil, message: String?) {
            self.reason = reason
            self.file = file
            self.size = size
            self.sha256 = sha256
            self.kind = kind
            self.adapter = adapter
            self.outcome = outcome
            self.pharmacyId = pharmacyId
            self.exportedAt = exportedAt
            self.read = read
            self.accepted = accepted
            self.rejected = rejected
            self.rejectsByReason = rejectsByReason
            self.message = message
        }
    }

    public init(version: String, schemaVersion: Int, createdAt: String, importerVersion: String, inputs: [Input],
                rowCounts: [String: Int], rejectCounts: [String: Int], warningCounts: [String: Int],
                snapshot: SnapshotFile, rejectsFile: String, warningsFile: String, forced: Bool,
                forcedGates: [String] = [], carriedOver: [CarriedOver] = [], rejectSample: [Reject]? = nil) {
        self.rejectSample = rejectSample
        self.version = version
        self.schemaVersion = schemaVersion
        self.createdAt = createdAt
        self.importerVersion = importerVersion
        self.inputs = inputs
        self.rowCounts = rowCounts
        self.rejectCounts = rejectCounts
        self.warningCounts = warningCounts
        self.snapshot = snapshot
        self.rejectsFile = rejectsFile
        self.warningsFile = warningsFile
        self.forced = forced
        self.forcedGates = forcedGates
        self.carriedOver = carriedOver
    }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    public static func decode(_ data: Data) throws -> Manifest {
        let decoder = JSONDecoder()
        return try decoder.decode(Manifest.self, from: data)
    }
}
