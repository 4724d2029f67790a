import Foundation
import IngestCore
import IngestSnapshot

/// `--report FILE`: the printed report as JSON, for scripts and dashboards.
/// Keys are snake_case and stable; it is parsed back in tests.
public struct RunReportDocument: Codable, Sendable {
    public var dryRun: Bool
    public var publishedVersion: String?
    public var previousVersion: String?
    public var published: Bool
    public var blocked: String?
    public var failedGates: [QualityGates.Failure]
    public var forcedGates: [QualityGates.Failure]
    /// The same entries as the manifest's `inputs`.
    public var feeds: [Manifest.Input]
    public var rowCounts: [String: Int]
    public var rejectCounts: [String: Int]
    public var warningCounts: [String: Int]
    public var carriedOver: [CarryOver]
    /// The wrong-data checks with their margins.
    public var checks: [CheckSummary]
    public var diff: SnapshotDiff?
    /// A sample: the first 100 rejects of each reason (`reject_counts` has
    /// them all counted, the version's rejects file has every one).
    public var rejects: [Reject]
    /// What the gates and checks compared against (`current 2026…`, or why nothing).
    public var baseline: String
    /// What killed runs had left, removed by this one.
    public var cleanedUp: [String]

    enum CodingKeys: String, CodingKey {
        case published, blocked, feeds, diff, rejects, checks
        case dryRun = "dry_run", publishedVersion = "published_version", previousVersion = "previous_version"
        case failedGates = "failed_gates", forcedGates = "forced_gates", rowCounts = "row_counts"
        case rejectCounts = "reject_counts", warningCounts = "warning_counts", carriedOver = "carried_over", cleanedUp = "cleaned_up", baseline
    }

    public init(_ report: RunReport) {
        dryRun = report.dryRun
        publishedVersion = report.publishedVersion
        previousVersion = report.previousVersion
        published = report.publishedVersion != nil
        blocked = report.blocked?.description
        if case .gates(let failures) = report.blocked { failedGates = failures } else { failedGates = [] }
        forcedGates = report.forcedGates
        feeds = report.feeds.map(\.manifestInput)
        rowCounts = report.rowCounts
        rejectCounts = Dictionary(uniqueKeysWithValues: report.rejectCounts.map { ($0.key.rawValue, $0.value) })
        warningCounts = Dictionary(uniqueKeysWithValues: report.warningCounts.map { ($0.key.rawValue, $0.value) })
        carriedOver = report.carriedOver
        checks = report.checks
        diff = report.diff
        rejects = Array(report.rejects)
        cleanedUp = report.cleanedUp
        baseline = report.baseline
    }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
