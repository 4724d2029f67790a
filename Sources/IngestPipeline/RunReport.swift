import IngestCore

/// What a run did, for the printed report, the manifest and the exit code.
public struct RunReport: Sendable {
    public var dryRun: Bool
    /// The version published; nil for a dry run or a blocked publish.
    public var publishedVersion: String?
    public var snapshotPath: String?
    public var feeds: [FeedResult] = []
    public var rowCounts: [String: Int] = [:]
    public var rejects: [Reject] = []
    public var warnings: [Warning] = []
    /// Set when the run finished but must not publish.
    public var blocked: PublishBlock?
    /// Gates that failed and were overridden with --force.
    public var forcedGates: [QualityGates.Failure] = []
    /// How the wrong-data checks went (price shift, item count drop, duplicate stock).
    public var checks: [CheckSummary] = []
    /// What was kept from the previous snapshot.
    public var carriedOver: [CarryOver] = []
    /// The version the run compared against (`current` when it started).
    public var previousVersion: String?
    /// What killed runs had left (staging files, a dry run's folder), removed by this run.
    public var cleanedUp: [String] = []
    /// Against current: filled for dry runs and `snapshots diff`.
    public var diff: SnapshotDiff?

    /// Feeds by file, then by pharmacy (a chain file has a line per
    /// pharmacy); rejects by file and line: the order every report reads in.
    mutating func sortForReading() {
        feeds.sort { a, b in
            a.file != b.file ? precedesInByteOrder(a.file, b.file) : precedesInByteOrder(a.pharmacyID ?? "", b.pharmacyID ?? "")
        }
        rejects.sort { ($0.file, $0.line) < ($1.file, $1.line) }
    }

    public var rejectCounts: [RejectReason: Int] {
        rejects.reduce(into: [:]) { $0[$1.reason, default: 0] += 1 }
    }

    public var warningCounts: [WarningCode: Int] {
        warnings.reduce(into: [:]) { $0[$1.code, default: 0] += 1 }
    }
}
