import Foundation
import IngestAdapters
import IngestCore
import IngestSnapshot

/// Splits tonight's chain files (FEEDS.md §3: one file, many pharmacies, in
/// any row order) into one plan candidate per pharmacy, so that each
/// pharmacy in a chain file is chosen, gated, carried over and reported on
/// its own, like a file of its own.
///
/// Each file is parsed once, on as many threads as there are chain files
/// (up to the parse threads); the offers wait in spill files in the run's
/// staging area, so memory holds one buffer per pharmacy, never the file.
struct ChainFileSplitter {
    struct Chain: Sendable {
        var file: FeedFile
        var adapter: any ChainFeedAdapter
    }

    /// The candidates, and report lines for what belongs to no pharmacy.
    struct Split: Sendable {
        var candidates: [StockFeedPlan.Candidate] = []
        var settled: [FeedResult] = []
        var rejects: [Reject] = []
        var warnings: [Warning] = []
    }

    /// Spill files are `<spillPrefix><file>-<part>`.
    let spillPrefix: String
    let threads: Int
    /// Seconds one file's split may take (`--feed-timeout`).
    var timeout: TimeInterval = 900

    func split(_ chains: [Chain]) throws -> Split {
        let timeout = timeout
        // Largest first: a big chain file taken last would keep one core
        // busy for seconds after the small ones are done. Results are merged
        // in the files' own order all the same.
        let order = chains.indices.sorted { chains[$0].file.size > chains[$1].file.size }
        let queue = OrderedWorkQueue<Result<Split, Error>>(count: chains.count, window: max(1, threads), timeout: timeout) { position in
            .success(Self.timedOut(chains[order[position]], after: timeout))
        }
        queue.start(threads: min(max(1, threads), max(1, chains.count))) { position in
            Result { try splitOne(chains[order[position]], index: order[position]) }
        }
        defer {
            queue.cancel()
            queue.wait()
        }
        var results = [Split?](repeating: nil, count: chains.count)
        var position = 0
        while let result = queue.take() {
            results[order[position]] = try result.get()
            position += 1
        }
        var split = Split()
        for one in results.compactMap({ $0 }) {
            split.candidates += one.candidates
            split.settled += one.settled
            split.rejects += one.rejects
            split.warnings += one.warnings
        }
        return split
    }

    /// A file this large gets lanes of its own (`ChainLanes`): its rows
    /// outweigh the per-row hand-off, and it is what the other core would
    /// otherwise wait for.
    static let laneThreshold: Int64 = 16 << 20

    /// A chain file whose split did not end in time: rejected whole, its
    /// pharmacies keep yesterday's data. What it spilled is removed with
    /// the run's spills (or by the next run, if the thread writes on).
    private static func timedOut(_ chain: Chain, after seconds: TimeInterval) -> Split {
        var feed = FeedResult(file: chain.file.name, size: chain.file.size, sha256: "", kind: FeedKind.stock.rawValue,
                              adapter: chain.adapter.name, outcome: .rejected)
        let failure = PharmacyFeedParser.timeoutFailure(seconds, what: "the chain file was not split")
        feed.reject(failure)
        return Split(settled: [feed])
    }

    private func splitOne(_ chain: Chain, index: Int) throws -> Split {
        let file = chain.file
        let router = ChainRouter(file: file.name, spillPrefix: "\(spillPrefix)\(index)-",
                                 lanes: file.size >= Self.laneThreshold ? threads : 1)
        let onePass = OnePassDigest()
        let output = chain.adapter.split(file.observed(by: onePass), into: router)
        let parts = router.finish(fileFailure: output.failure)
        if let failure = router.spillFailure { throw failure }
        let sha256 = onePass.value(size: file.size) ?? PharmacyFeedParser.digest(file)
        var split = Split()
        split.candidates = parts.map { part in
            StockFeedPlan.Candidate(file: file, adapter: chain.adapter, header: part.header, part: part, sha256: sha256)
        }
        guard output.read > 0 || parts.isEmpty else { return split }
        // What belongs to no pharmacy: rows without an id, or the whole file when no row named one.
        var rest = FeedResult(file: file.name, size: file.size, sha256: sha256, kind: FeedKind.stock.rawValue,
                              adapter: chain.adapter.name, outcome: .rejected)
        let noRows = output.read == 0 ? FeedFailure(reason: .badHeader, message: "the feed has no data rows") : nil
        if parts.isEmpty, let failure = output.failure ?? noRows {
            rest.reject(failure)
        } else {
            rest.reason = FeedSkip.noPharmacy
            rest.message = "\(output.read) rows name no pharmacy (or could not be read far enough to find it); the file's \(parts.count) pharmacies are listed on their own"
        }
        rest.count(output)
        split.settled = [rest]
        split.rejects = output.rejects
        split.warnings = output.warnings
        return split
    }

    /// Removes the spill files of a run (all of them share `spillPrefix`).
    func removeSpills() {
        let directory = (spillPrefix as NSString).deletingLastPathComponent
        let prefix = (spillPrefix as NSString).lastPathComponent
        // Absence is normal (no chain file tonight, or nothing spilled).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(prefix) {
            unlink("\(directory)/\(name)")
        }
    }
}
