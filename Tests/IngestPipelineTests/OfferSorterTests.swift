import Foundation
import IngestCore
import IngestGenerator
import IngestTestSupport
import Testing
@testable import IngestPipeline

@Suite struct OfferSorterTests {
    private func offer(_ aptcode: String, line: Int, quantity: Int64? = 1) -> StockOffer {
        StockOffer(aptcode: aptcode, name: "N\(line)", priceCents: Int64(line), quantity: quantity, line: line)
    }

    /// Sorted by aptcode bytes, each once (the first in the file); the same
    /// whether it fits one run in memory or is merged from runs on disk.
    @Test(arguments: [1, 2, 3, 1000])
    func sortsKeepsTheFirstOfEachAptcodeAndCountsTheRest(runLength: Int) throws {
        let temporary = TemporaryDirectory()
        let sorter = OfferSorter(spillPrefix: "\(temporary.path)/s-", runLength: runLength)
        let codes = ["B", "a", "A2", "A1", "B", "A10", "A2", "B"]
        for (index, code) in codes.enumerated() { sorter.accept(offer(code, line: index + 1)) }
        var duplicates: [Int] = []
        let sorted = try sorter.finish { duplicates.append($0.line) }
        var seen: [String] = []
        var lines: [Int] = []
        try sorted.forEach {
            seen.append($0.aptcode)
            lines.append($0.line)
        }
        #expect(seen == ["A1", "A10", "A2", "B", "a"], "upper case before lower case, as SQLite's BINARY collation")
        #expect(lines == [4, 6, 3, 1, 2])
        #expect(duplicates.sorted() == [5, 7, 8])
        #expect(sorted.count == 5)
        #expect(sorted.head.map(\.aptcode) == seen)
        #expect(!sorted.allQuantitiesZero && !sorted.allQuantitiesAbsent)
        sorted.discard()
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(left.isEmpty, "runs and the merged file are removed: \(left)")
    }

    /// The digest ignores order, so two pharmacies' identical stock match however each file is ordered.
    @Test func digestAndQuantitiesDoNotDependOnOrder() throws {
        let temporary = TemporaryDirectory()
        func sorted(_ codes: [String], runLength: Int, quantity: Int64?) throws -> SortedOffers {
            let sorter = OfferSorter(spillPrefix: "\(temporary.path)/\(runLength)-", runLength: runLength)
            for code in codes { sorter.accept(StockOffer(aptcode: code, name: "N", priceCents: 5, quantity: quantity, line: 1)) }
            return try sorter.finish { _ in Issue.record("no duplicates here") }
        }
        let a = try sorted(["X", "Y", "Z"], runLength: 1, quantity: 0)
        let b = try sorted(["Z", "X", "Y"], runLength: 10, quantity: 0)
        #expect(a.digest == b.digest)
        #expect(a.allQuantitiesZero && b.allQuantitiesZero)
        #expect(try sorted(["X"], runLength: 10, quantity: nil).allQuantitiesAbsent)
        a.discard()
    }
    /// The in-memory sort compares 16-byte key prefixes first: codes that
    /// share them, are longer than them, differ only in length or hold a
    /// zero byte or multi-byte letters must still come out in SQLite's byte
    /// order, equal codes in arrival order, whatever order they came in.
    @Test(arguments: [1, 2, 3])
    func sortsLikeSQLiteBytesWhateverTheKeyPrefixes(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let letters = ["A", "B", "\u{0}", "é", "Z"]
        let stems = ["", "ABCDEFGHIJKLMNO", "ABCDEFGHIJKLMNOP", "ABCDEFGHIJKLMNOPQ"]
        var offers: [StockOffer] = []
        for line in 1...600 {
            let stem = stems[Int(random.next() % UInt64(stems.count))]
            let tail = (0..<Int(random.next() % 4)).map { _ in letters[Int(random.next() % UInt64(letters.count))] }.joined()
            offers.append(offer(stem + tail, line: line))
        }
        let expected = offers.indices.sorted { a, b in
            offers[a].aptcode == offers[b].aptcode ? a < b : precedesInByteOrder(offers[a].aptcode, offers[b].aptcode)
        }.map { offers[$0].line }
        var sorted = offers
        OfferSorter.sort(&sorted)
        #expect(sorted.map(\.line) == expected)
        var duplicates: [Int] = []
        OfferSorter.removeLaterDuplicates(&sorted) { duplicates.append($0.line) }
        #expect(Set(sorted.map(\.aptcode)).count == sorted.count)
        #expect(sorted.count + duplicates.count == offers.count)
        let firsts = Dictionary(offers.map { ($0.aptcode, $0.line) }, uniquingKeysWith: { first, _ in first })
        #expect(sorted.allSatisfy { firsts[$0.aptcode] == $0.line }, "the first of each aptcode in the file stays")
    }
}
