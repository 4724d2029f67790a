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
final class OfferSorter {
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
            // Sorted and deduplicated in place: the buffer becomes the result,
            // no offer copied (each copy retained its text fields).
            Self.sort(&buffer)
            Self.removeLaterDuplicates(&buffer, duplicate: duplicate)
            for index in buffer.indices { builder.add(buffer[index]) }
            let sorted = buffer
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

    /// Sorts by aptcode bytes, stable by arrival (the first of equal
    /// aptcodes stays first). Exports are usually in order already, which
    /// one pass finds; otherwise the order is found on 16-byte key prefixes
    /// (an aptcode is rarely longer) and applied by swapping, not copying.
    static func sort(_ offers: inout [StockOffer]) {
        var ordered = true
        for index in offers.indices.dropFirst() where !precedesInByteOrder(offers[index - 1].aptcode, offers[index].aptcode) {
            ordered = false
            break
        }
        if ordered { return }
        var keys = offers.indices.map { SortKey(offers[$0].aptcode, index: $0) }
        keys.sort { a, b in
            if a.high != b.high { return a.high < b.high }
            if a.low != b.low { return a.low < b.low }
            if a.count > SortKey.width || b.count > SortKey.width {
                let first = offers[a.index].aptcode, second = offers[b.index].aptcode
                if first != second { return precedesInByteOrder(first, second) }
            } else if a.count != b.count {
                return a.count < b.count
            }
            return a.index < b.index
        }
        // Position p takes the offer that was at keys[p].index: cycle by cycle, by swaps.
        var placed = [Bool](repeating: false, count: offers.count)
        for start in offers.indices where !placed[start] {
            var position = start
            placed[position] = true
            while keys[position].index != start {
                let from = keys[position].index
                offers.swapAt(position, from)
                position = from
                placed[position] = true
            }
        }
    }

    /// Drops every later offer of an aptcode already seen (they lie right
    /// after it, in arrival order), telling `duplicate` of each.
    static func removeLaterDuplicates(_ offers: inout [StockOffer], duplicate: (StockOffer) -> Void) {
        guard offers.count > 1 else { return }
        var kept = 1
        for index in 1..<offers.count {
            if offers[index].aptcode == offers[kept - 1].aptcode {
                duplicate(offers[index])
                continue
            }
            if kept != index { offers.swapAt(kept, index) }
            kept += 1
        }
        offers.removeLast(offers.count - kept)
    }

    /// An aptcode's first 16 bytes as two big-endian integers: most
    /// comparisons end on them, without touching the strings.
    struct SortKey {
        static let width = 16
        var high: UInt64 = 0
        var low: UInt64 = 0
        var count: Int
        var index: Int

        init(_ aptcode: String, index: Int) {
            var text = aptcode
            count = text.utf8.count
            self.index = index
            text.withUTF8 { bytes in
                for (position, byte) in bytes.prefix(Self.width).enumerated() {
                    if position < 8 {
                        high |= UInt64(byte) << (56 - 8 * position)
                    } else {
                        low |= UInt64(byte) << (56 - 8 * (position - 8))
                    }
                }
            }
        }
    }

    private func spillRun() throws(POSIXFailure) {
        guard !buffer.isEmpty else { return }
        let path = "\(spillPrefix)run-\(runs.count)"
        runs.append(path)
        var writer = OfferSpill.Writer(path: path)
        Self.sort(&buffer)
        for index in buffer.indices { try writer.append(buffer[index]) }
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
