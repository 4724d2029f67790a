import Dispatch
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

    func split(_ chains: [Chain]) throws -> Split {
        let results = SplitSlots(count: chains.count)
        let next = SplitSlots.Counter()
        DispatchQueue.concurrentPerform(iterations: min(max(1, threads), max(1, chains.count))) { _ in
            while let index = next.take(below: chains.count) {
                results.set(index, Result { try splitOne(chains[index], index: index) })
            }
        }
        var split = Split()
        for result in results.values {
            let one = try result!.get()
            split.candidates += one.candidates
            split.settled += one.settled
            split.rejects += one.rejects
            split.warnings += one.warnings
        }
        return split
    }

    private func splitOne(_ chain: Chain, index: Int) throws -> Split {
        let file = chain.file
        let router = ChainRouter(file: file.name, spillPrefix: "\(spillPrefix)\(index)-")
        let output = chain.adapter.split(file, into: router)
        let parts = router.finish(fileFailure: output.failure)
        if let failure = router.spillFailure { throw failure }
        let sha256 = PharmacyFeedParser.digest(file.path)
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
            rest.reason = failure.reason.rawValue
            rest.message = failure.line > 0 ? "\(failure.reason) at line \(failure.line): \(failure.message)" : "\(failure.reason): \(failure.message)"
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

/// Results of the parallel splits, by index, and the next index to take.
private final class SplitSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<ChainFileSplitter.Split, Error>?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: Result<ChainFileSplitter.Split, Error>) {
        lock.withLock { slots[index] = value }
    }
    var values: [Result<ChainFileSplitter.Split, Error>?] { lock.withLock { slots } }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var next = 0
        func take(below count: Int) -> Int? {
            lock.withLock {
                guard next < count else { return nil }
                defer { next += 1 }
                return next
            }
        }
    }
}
