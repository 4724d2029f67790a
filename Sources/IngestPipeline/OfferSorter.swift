import Foundation
import IngestAdapters
import IngestCore

/// Puts one feed's accepted offers in key order within a memory budget:
/// runs of `runLength` offers are sorted in memory and spilled to the run's
/// staging area, then merged into one file, each aptcode once. A feed that
/// fits one run (every real pharmacy's) never touches the disk.
///
/// Duplicate aptcodes are found here, where they lie side by side, rather
/// than with a set of every key seen (a 1 GB feed's set alone was hundreds
/// of MB): the first in the file is kept, later ones are `revoked` into
/// `duplicate_key` rejects, as the adapters did before.
///
/// Used by one parse thread; the sink's closures reach it from the adapter.
final class OfferSorter: @unchecked Sendable {
    /// About 8 MB of offers: a parse thread, and each result waiting for the
    /// writer, holds at most one run.
    static let runLength = 32_768

    let spillPrefix: String
    let runLength: Int
    private var buffer: [StockOffer] = []
    private var runs: [String] = []
    private var failure: POSIXFailure?

    init(spillPrefix: String, runLength: Int = OfferSorter.runLength) {
        self.spillPrefix = spillPrefix
        self.runLength = max(1, runLength)
    }

    func accept(_ offer: StockOffer) {
        guard failure == nil else { return }
        buffer.append(offer)
        if buffer.count >= runLength {
            do { try spillRun() } catch { failure = error }
        }
    }

    /// The offers sorted, each aptcode once; `duplicate` is told of every later copy.
    func finish(duplicate: (StockOffer) -> Void) throws(POSIXFailure) -> SortedOffers {
        if let failure { throw failure }
        var builder = SortedOffers.Builder()
        guard !runs.isEmpty else {
            var sorted: [StockOffer] = []
            sorted.reserveCapacity(buffer.count)
            var last: String?
            for offer in Self.sorted(buffer) {
                if offer.aptcode == last { duplicate(offer); continue }
                last = offer.aptcode
                builder.add(offer)
                sorted.append(offer)
            }
            buffer = []
            return builder.build(.memory(sorted))
        }
        try spillRun()
        let merged = "\(spillPrefix)sorted"
        var writer = OfferSpill.Writer(path: merged)
        do {
            var last: String?
            try merge { offer throws(POSIXFailure) in
                if offer.aptcode == last { return duplicate(offer) }
                last = offer.aptcode
                builder.add(offer)
                try writer.append(offer)
            }
            try writer.flush()
        } catch {
            unlink(merged)
            discard()
            throw error
        }
        discard()
        return builder.build(.file(merged))
    }

    /// Removes the runs (also after a merge).
    func discard() {
        for run in runs { unlink(run) }
        runs = []
        buffer = []
    }

    /// Stable by arrival: the first of equal aptcodes stays first.
    private static func sorted(_ offers: [StockOffer]) -> [StockOffer] {
        // Exports are usually in aptcode order already: check before sorting.
        var ordered = true
        for index in offers.indices.dropFirst() where !precedesInByteOrder(offers[index - 1].aptcode, offers[index].aptcode) {
            ordered = false
            break
        }
        if ordered { return offers }
        let order = offers.indices.sorted { a, b in
            offers[a].aptcode == offers[b].aptcode ? a < b : precedesInByteOrder(offers[a].aptcode, offers[b].aptcode)
        }
        return order.map { offers[$0] }
    }

    private func spillRun() throws(POSIXFailure) {
        guard !buffer.isEmpty else { return }
        let path = "\(spillPrefix)run-\(runs.count)"
        runs.append(path)
        var writer = OfferSpill.Writer(path: path)
        for offer in Self.sorted(buffer) { try writer.append(offer) }
        try writer.flush()
        buffer.removeAll(keepingCapacity: true)
    }

    /// The runs merged in key order; equal aptcodes in run order (arrival order).
    private func merge(_ body: (StockOffer) throws(POSIXFailure) -> Void) throws(POSIXFailure) {
        var cursors: [OfferSpill.Cursor] = []
        var heap = MergeHeap()
        for run in runs {
            guard let cursor = try OfferSpill.Cursor(path: run) else { continue }
            if let first = try cursor.next() { heap.push(.init(offer: first, run: cursors.count)) }
            cursors.append(cursor)
        }
        while let smallest = heap.pop() {
            try body(smallest.offer)
            if let next = try cursors[smallest.run].next() { heap.push(.init(offer: next, run: smallest.run)) }
        }
    }
}

/// A binary min-heap of the runs' current offers.
private struct MergeHeap {
    struct Entry {
        var offer: StockOffer
        var run: Int
        func precedes(_ other: Entry) -> Bool {
            offer.aptcode == other.offer.aptcode ? run < other.run : precedesInByteOrder(offer.aptcode, other.offer.aptcode)
        }
    }

    private var entries: [Entry] = []

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let top = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].precedes(entries[smallest]) { smallest = left }
            if right < entries.count, entries[right].precedes(entries[smallest]) { smallest = right }
            if smallest == parent { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
