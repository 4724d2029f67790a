import Foundation
import IngestCore
import IngestSnapshot

/// `--report FILE`: the run as JSON, for scripts and dashboards, written for
/// published, dry, gated and failed runs alike. Its shape is versioned
/// (`schema_version`) and described by `docs/schemas/run-report.schema.json`,
/// which the tests hold real reports to: every key is always present (`null`
/// where there is nothing), keys are snake_case, numbers are numbers, and
/// what a program branches on is a code (`blocked: "gates"`), never a sentence.
public struct RunReportDocument: Codable, Sendable {
    /// Raised when a key is renamed or removed, or a value changes meaning; a new key does not.
    public static let currentSchemaVersion = 1

    /// What the report says of the run itself, beside what it did.
    public struct Run: Sendable {
        public var importerVersion: String
        public var startedAt: Date
        public var finishedAt: Date
        /// The process's exit status (`ExitStatus`).
        public var exitStatus: Int
        /// Why the run stopped, when it did not finish.
        public var error: String?
        public var dryRun: Bool

        public init(importerVersion: String, startedAt: Date, finishedAt: Date, exitStatus: Int, error: String? = nil, dryRun: Bool) {
            self.importerVersion = importerVersion
            self.startedAt = startedAt
            self.finishedAt = finishedAt
            self.exitStatus = exitStatus
            self.error = error
            self.dryRun = dryRun
        }
    }

    /// A failed gate, its fall in percent a number.
    public struct Gate: Codable, Sendable, Equatable {
        public var gate: String
        public var current: Int
        public var new: Int
        public var dropPercent: Double
        public var limitPercent: Int

        enum CodingKeys: String, CodingKey {
            case gate, current, new
            case dropPercent = "drop_percent", limitPercent = "limit_percent"
        }

        init(_ failure: QualityGates.Failure) {
            gate = failure.gate
            current = failure.current
            new = failure.new
            dropPercent = Double(failure.dropPercent) ?? 0
            limitPercent = failure.limitPercent
        }
    }

    /// A feed (or chain part) as the manifest lists it, with every key.
    public struct Feed: Codable, Sendable, Equatable {
        public var file: String
        public var size: Int64
        public var sha256: String
        @NullEncoded public var kind: String?
        @NullEncoded public var adapter: String?
        public var outcome: String
        @NullEncoded public var pharmacyID: String?
        @NullEncoded public var exportedAt: String?
        public var read: Int
        public var accepted: Int
        public var rejected: Int
        public var rejectsByReason: [String: Int]
        @NullEncoded public var reason: String?
        @NullEncoded public var message: String?

        enum CodingKeys: String, CodingKey {
            case file, size, sha256, kind, adapter, outcome, read, accepted, rejected, reason, message
            case pharmacyID = "pharmacy_id", exportedAt = "exported_at", rejectsByReason = "rejects_by_reason"
        }

        init(_ input: Manifest.Input) {
            file = input.file
            size = input.size
            sha256 = input.sha256
            kind = input.kind
            adapter = input.adapter
            outcome = input.outcome
            pharmacyID = input.pharmacyId
            exportedAt = input.exportedAt
            read = input.read
            accepted = input.accepted
            rejected = input.rejected
            rejectsByReason = input.rejectsByReason
            reason = input.reason
            message = input.message
        }
    }

    /// A rejected record of the sample, with every key.
    public struct RejectEntry: Codable, Sendable, Equatable {
        public var file: String
        public var line: Int
        public var key: String
        public var reason: String
        public var message: String
        @NullEncoded public var field: String?

        init(_ reject: Reject) {
            file = reject.file
            line = reject.line
            key = reject.key
            reason = reject.reason.rawValue
            message = reject.message
            field = reject.field
        }
    }

    public var schemaVersion: Int
    public var importerVersion: String
    public var startedAt: String
    public var finishedAt: String
    public var durationSeconds: Double
    public var exitStatus: Int
    @NullEncoded public var error: String?
    public var dryRun: Bool
    public var published: Bool
    /// The run built exactly current's data, so it published nothing (exit 0).
    public var nothingNew: Bool
    @NullEncoded public var publishedVersion: String?
    @NullEncoded public var previousVersion: String?
    /// Why nothing was published though the run finished: `empty_result` or `gates`.
    @NullEncoded public var blocked: String?
    public var failedGates: [Gate]
    public var forcedGates: [Gate]
    public var feeds: [Feed]
    public var rowCounts: [String: Int]
    public var rejectCounts: [String: Int]
    public var warningCounts: [String: Int]
    public var carriedOver: [CarryOver]
    /// The wrong-data checks with their margins.
    public var checks: [CheckSummary]
    /// Against current, for every run that had one (null without a baseline or when the run failed).
    @NullEncoded public var diff: SnapshotDiff?
    /// A sample: the first 100 rejects of each reason (`reject_counts` has
    /// them all counted, the version's rejects file has every one).
    public var rejects: [RejectEntry]
    /// What the gates and checks compared against (`current 2026…`, or why nothing).
    @NullEncoded public var baseline: String?
    /// What killed runs had left, removed by this one.
    public var cleanedUp: [String]
    /// Files of the feeds folder an earlier night judged for good: not read again, only counted (`FeedLedger`).
    public var earlierNightFiles: Int

    enum CodingKeys: String, CodingKey {
        case published, blocked, feeds, diff, rejects, checks, error, baseline
        case schemaVersion = "schema_version", importerVersion = "importer_version"
        case startedAt = "started_at", finishedAt = "finished_at", durationSeconds = "duration_seconds", exitStatus = "exit_status"
        case nothingNew = "nothing_new"
        case dryRun = "dry_run", publishedVersion = "published_version", previousVersion = "previous_version"
        case failedGates = "failed_gates", forcedGates = "forced_gates", rowCounts = "row_counts"
        case rejectCounts = "reject_counts", warningCounts = "warning_counts", carriedOver = "carried_over", cleanedUp = "cleaned_up"
        case earlierNightFiles = "earlier_night_files"
    }

    /// The report of `run`; `report` is nil when the run stopped on an error before it had one.
    public init(_ report: RunReport?, run: Run) {
        schemaVersion = Self.currentSchemaVersion
        importerVersion = run.importerVersion
        startedAt = MachineTime.timestamp(run.startedAt)
        finishedAt = MachineTime.timestamp(run.finishedAt)
        durationSeconds = MachineTime.seconds(run.finishedAt.timeIntervalSince(run.startedAt))
        exitStatus = run.exitStatus
        error = run.error
        dryRun = report?.dryRun ?? run.dryRun
        publishedVersion = report?.publishedVersion
        previousVersion = report?.previousVersion
        published = report?.publishedVersion != nil
        nothingNew = report?.nothingNew ?? false
        earlierNightFiles = report?.earlierNightFiles.count ?? 0
        blocked = report?.blocked?.code
        if case .gates(let failures)? = report?.blocked { failedGates = failures.map(Gate.init) } else { failedGates = [] }
        forcedGates = report?.forcedGates.map(Gate.init) ?? []
        feeds = report?.feeds.map { Feed($0.manifestInput) } ?? []
        rowCounts = report?.rowCounts ?? [:]
        rejectCounts = Dictionary(uniqueKeysWithValues: (report?.rejectCounts ?? [:]).map { ($0.key.rawValue, $0.value) })
        warningCounts = Dictionary(uniqueKeysWithValues: (report?.warningCounts ?? [:]).map { ($0.key.rawValue, $0.value) })
        carriedOver = report?.carriedOver ?? []
        checks = report?.checks ?? []
        diff = report?.diff
        rejects = report.map { Array($0.rejects).map(RejectEntry.init) } ?? []
        cleanedUp = report?.cleanedUp ?? []
        baseline = report?.baseline
    }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
