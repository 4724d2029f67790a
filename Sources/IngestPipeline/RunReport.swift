import IngestCore
import IngestSnapshot

/// What a run did, for the printed report, the manifest and the exit code.
public struct RunReport: Sendable {
    public var dryRun: Bool
    /// The version published; nil for a dry run or a blocked publish.
    public var publishedVersion: String?
    public var snapshotPath: String?
    public var feeds: [FeedResult] = []
    public var rowCounts: [String: Int] = [:]
    /// Every reject and warning of the run: counted, sampled, and spilled
    /// to the staging area's journals (the snapshot's rejects and warnings
    /// files) so that memory holds none of them beyond the sample.
    public var rejects: Journal<Reject>
    public var warnings: Journal<Warning>
    /// Set when the run finished but must not publish.
    public var blocked: PublishBlock?
    /// The run built exactly the data `current` holds (a re-run, a night of
    /// unchanged feeds): nothing is published, and that is no failure.
    public var nothingNew = false
    /// The feeds folder was not there (unmounted, removed): read as empty.
    public var feedsFolderMissing = false
    /// Files a published earlier night judged for good (`FeedLedger`): not read tonight, only counted.
    public var earlierNightFiles: [String] = []
    /// Gates that failed and were overridden with --force.
    public var forcedGates: [QualityGates.Failure] = []
    /// How the wrong-data checks went (price shift, item count drop, duplicate stock).
    public var checks: [CheckSummary] = []
    /// Pharmacies the snapshot marks stale. Not every carried one: data a
    /// run of tonight's date loaded stays fresh when a re-run carries it.
    public var stalePharmacies = 0
    /// What was kept from the previous snapshot.
    public var carriedOver: [CarryOver] = []
    /// The version the run compared against (`current` when it started).
    public var previousVersion: String?
    /// `current` was there but not read, on the operator's word (`--first-night`): the run had no baseline.
    public var ignoredCurrent: String?

    /// What the gates and checks compared against, in words.
    public var baseline: String {
        if let previousVersion { return "current \(previousVersion)" }
        if let ignoredCurrent { return "none: current \(ignoredCurrent) was not read (--first-night)" }
        return "none: there is no current snapshot"
    }
    /// What killed runs had left (staging files, a dry run's folder), removed by this run.
    public var cleanedUp: [String] = []
    /// Against current: filled for every run that had one, and `snapshots diff`.
    public var diff: SnapshotDiff?
    /// The gates against current, passed or not, with their margins; empty without a baseline or for an empty result.
    public var gates: [QualityGates.Measure] = []
    /// The run's phases in order and how long each took.
    public var phases: [PhaseTiming] = []
    /// The built snapshot's pharmacies with coordinates, stale ones marked: the HTML report's map.
    public var pharmacyPositions: [PharmacyPosition] = []

    /// `journalPrefix`: where the journals spill (`<prefix>rejects.jsonl`); nil keeps them in memory.
    public init(dryRun: Bool, journalPrefix: String? = nil) {
        self.dryRun = dryRun
        rejects = Journal(spillPath: journalPrefix.map { "\($0)rejects.jsonl" })
        warnings = Journal(spillPath: journalPrefix.map { "\($0)warnings.jsonl" })
    }

    /// Feeds by file, then by pharmacy (a chain file has a line per
    /// pharmacy); the rejects sample by file and line: the order every report reads in.
    mutating func sortForReading() {
        feeds.sort { a, b in
            a.file != b.file ? precedesInByteOrder(a.file, b.file) : precedesInByteOrder(a.pharmacyID ?? "", b.pharmacyID ?? "")
        }
        rejects.sortSample { ($0.file, $0.line) < ($1.file, $1.line) }
    }

    public var rejectCounts: [RejectReason: Int] { rejects.counts }

    public var warningCounts: [WarningCode: Int] { warnings.counts }

    /// Where the journals spill from now on: `<prefix>rejects.jsonl`, `<prefix>warnings.jsonl`.
    mutating func spillJournals(to prefix: String) {
        rejects.spillPath = "\(prefix)rejects.jsonl"
        warnings.spillPath = "\(prefix)warnings.jsonl"
    }

    /// Removes the journals' spilled files (a dry run, a run that did not publish).
    public func discardJournals() {
        rejects.discard()
        warnings.discard()
    }
}

extension WarningCode {
    /// `current` exists but cannot be read: the run carries nothing over and compares with nothing.
    public static let currentUnreadable = WarningCode(rawValue: "current_unreadable")
    /// `--first-night`: the run did not build on `current`.
    public static let firstNight = WarningCode(rawValue: "first_night")
    /// A registry row's `open_hours` is neither OSM syntax nor the Estonian short form: kept as text, no `pharmacy_hours`.
    public static let freeTextHours = WarningCode(rawValue: "free_text_hours")
}
