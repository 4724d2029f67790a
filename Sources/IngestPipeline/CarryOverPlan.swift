import IngestCore
import IngestSnapshot

/// Which of yesterday's pharmacies tonight's snapshot keeps, and when: the
/// writer takes pharmacies in id order, so every previous pharmacy that
/// tonight did not load is due just before the first loaded one that sorts
/// after it. And whether each may still be kept: data is carried for
/// `maxStaleDays` after the run that last loaded it (`loaded_at`), never
/// when it is dated after the run's own time.
///
/// Pure bookkeeping, apart from `StockLoader`, which does the reading,
/// pricing and writing.
struct CarryOverPlan {
    enum Verdict: Equatable {
        case keep
        /// Loaded more than `maxStaleDays` before the run's time.
        case stale(message: String)
        /// Dated after the run's time (a clock gone wrong): never carried.
        case future(message: String)
    }

    /// Data last loaded before this is too old to carry.
    let staleCutoff: Int64
    /// Data exported after this is dated in the future.
    let latestValidExport: Int64
    let maxStaleDays: Int
    /// Previous pharmacies not yet loaded or carried, largest id first (`popLast` takes the smallest).
    private var pending: [String]

    init(previousIDs: some Sequence<String>, asOf: ExportTimestamp, maxStaleDays: Int) {
        self.maxStaleDays = maxStaleDays
        staleCutoff = asOf.epochSeconds - Int64(maxStaleDays) * 86_400
        latestValidExport = asOf.epochSeconds + PharmacyFeedParser.futureTolerance
        pending = previousIDs.sorted { $1.utf8.lexicographicallyPrecedes($0.utf8) }
    }

    /// The previous pharmacies due before `pharmacyID` (all that remain, for
    /// nil), smallest first; they leave the plan.
    mutating func due(before pharmacyID: String?) -> [String] {
        var due: [String] = []
        while let next = pending.last, pharmacyID.map({ next.utf8.lexicographicallyPrecedes($0.utf8) }) ?? true {
            due.append(pending.removeLast())
        }
        return due
    }

    /// `pharmacyID` is handled tonight (loaded, or carried by the caller itself): it is not due again.
    mutating func handled(_ pharmacyID: String) {
        if pending.last == pharmacyID { pending.removeLast() }
    }

    /// Whether `old` (a pharmacy row of `version`) may be carried tonight.
    func verdict(for old: PharmacyRow, in version: String) -> Verdict {
        guard let refreshed = ExportTimestamp.parseISO8601(old.lastRefresh), refreshed.epochSeconds <= latestValidExport else {
            return .future(message: "pharmacy \(old.id)'s offers in \(version) are dated \(old.lastRefresh), after the run's time; they are dropped, never carried")
        }
        guard let loaded = ExportTimestamp.parseISO8601(old.loadedAt ?? old.lastRefresh), loaded.epochSeconds >= staleCutoff else {
            return .stale(message: "pharmacy \(old.id) sent no valid feed since the run of \(old.loadedAt ?? old.lastRefresh), over \(maxStaleDays) days; its offers are dropped")
        }
        return .keep
    }
}
