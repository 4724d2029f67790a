import IngestAdapters
import IngestCore
import IngestSnapshot

/// What one step of loading adds to the run's report. The loader's stages
/// return values; the loader gathers them into a part per pharmacy (and one
/// for the night's end), and `RunReport.absorb(_:)` is the one place a part
/// is added, in the order the steps ran, so the journals' files read the
/// same from run to run.
struct LoadReportPart {
    var feeds: [FeedResult] = []
    var rejects: Journal<Reject>
    var warnings: Journal<Warning>
    var carriedOver: [CarryOver] = []
    /// Stock feeds loaded tonight that a check then rejected whole: this
    /// part's own, or one loaded earlier and evicted as a copy.
    var rejectedFeeds: [RejectedFeed] = []
    /// The night's end only: how each pharmacy check went, and how many pharmacies are stale.
    var checks: [CheckSummary]?
    var stalePharmacies: Int?

    /// An empty part whose journals spill beside the run's (a night's end
    /// can warn of every item).
    init(spillPrefix: String?) {
        rejects = Journal(spillPath: spillPrefix.map { "\($0)load-rejects.jsonl" })
        warnings = Journal(spillPath: spillPrefix.map { "\($0)load-warnings.jsonl" })
    }

    /// A parse's feeds, rejects and warnings; the part owns its journals from here.
    init(_ result: PharmacyFeedParser.Result) {
        feeds = result.feeds
        rejects = result.rejects
        warnings = result.warnings
    }

    /// Removes the journals' spilled files (once absorbed, or when the night fails).
    func discard() {
        rejects.discard()
        warnings.discard()
    }
}

/// A stock feed that loaded and was then rejected whole by a check.
struct RejectedFeed {
    var pharmacyID: String
    var problem: StockDataChecks.Problem
}

extension RunReport {
    /// Adds a step of loading: its feeds, then the feeds it rejected, its
    /// journals, its carry-overs and (at the night's end) the checks.
    mutating func absorb(_ part: LoadReportPart) throws {
        defer { part.discard() }
        feeds += part.feeds
        for rejected in part.rejectedFeeds { markRejected(rejected) }
        try rejects += part.rejects
        try warnings += part.warnings
        carriedOver += part.carriedOver
        if let checks = part.checks { self.checks = checks }
        if let stale = part.stalePharmacies { stalePharmacies = stale }
    }

    /// The pharmacy's loaded stock feed becomes a rejected one: its accepted
    /// records are counted under the check's reason (each is in the rejects).
    private mutating func markRejected(_ rejected: RejectedFeed) {
        let (id, problem) = (rejected.pharmacyID, rejected.problem)
        guard let index = feeds.lastIndex(where: { $0.pharmacyID == id && $0.outcome == .loaded && $0.kind == FeedKind.stock.rawValue }) else { return }
        feeds[index].outcome = .rejected
        feeds[index].reason = problem.reason.rawValue
        feeds[index].message = "\(problem.reason): \(problem.message)"
        feeds[index].rejectsByReason[problem.reason, default: 0] += feeds[index].accepted
        feeds[index].accepted = 0
    }
}
