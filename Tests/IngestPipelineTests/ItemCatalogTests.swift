import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// The same rules whether rows stay in memory or go through the overflow
/// table (a limit of 1 or 2 moves nearly every row there and back).
@Suite struct ItemCatalogTests {
    private func offer(_ aptcode: String, name: String, packageCode: String? = nil, gtin: String? = nil,
                       producer: String? = nil, atc: String? = nil) -> StockOffer {
        StockOffer(aptcode: aptcode, packageCode: packageCode, gtin: gtin, name: name, producer: producer, atc: atc,
                   priceCents: 100, quantity: 1, line: 1)
    }

    /// A catalog with `limit` rows in memory (nil: no overflow), and the writer that keeps its table alive.
    private func catalog(limit: Int?, _ temporary: TemporaryDirectory,
                         yesterday: ((String) throws -> ItemRow?)? = nil) throws -> (ItemCatalog, SnapshotWriter?) {
        guard let limit else { return (ItemCatalog(yesterday: yesterday), nil) }
        let writer = try SnapshotWriter(path: "\(temporary.path)/s.sqlite")
        return (ItemCatalog(overflow: try ItemOverflow(writer: writer), limit: limit, yesterday: yesterday), writer)
    }

    /// Schema 5 (SNAPSHOT.md "Across nights"): tonight's first mention gives
    /// the fields, later mentions fill its gaps, yesterday's row fills only
    /// what all of them left empty; a carried pharmacy taken before a fresh
    /// one does not make yesterday's row the first mention. An item only
    /// carried pharmacies sell stays yesterday's row.
    @Test(arguments: [nil, 1, 2])
    func tonightsFeedsAreBelievedAndYesterdayFillsTheirGaps(limit: Int?) throws {
        let temporary = TemporaryDirectory()
        let yesterdays = [
            "A": ItemRow(aptcode: "A", packageCode: "1000001", gtin: "04740000000017", name: "OLD NAME", producer: "OLD MAKER",
                         atc: "N02BE01", activeSubstance: "Paracetamolum", infoURL: "https://leaflet/A", imageURL: nil),
            "B": ItemRow(aptcode: "B", packageCode: "1000012", gtin: nil, name: "CARRIED ONLY", producer: "P", atc: nil, activeSubstance: nil),
        ]
        var (catalog, writer) = try catalog(limit: limit, temporary, yesterday: { yesterdays[$0] })
        defer { withExtendedLifetime(writer) {} } // the overflow table lives on its connection
        // A carried pharmacy comes first in key order and brings yesterday's rows.
        try catalog.add(yesterdays["A"]!)
        try catalog.add(yesterdays["B"]!)
        // Then a fresh feed corrects A's name and producer and sends no package code: yesterday's prices its offer meanwhile.
        let first = try catalog.add(offer("A", name: "NEW NAME", producer: "NEW MAKER"))
        #expect(first.packageCode == "1000001")
        #expect(try catalog.packageCode(of: "A") == "1000001")
        // A later feed fills what the first left empty, before yesterday does.
        try catalog.add(offer("A", name: "LATER NAME", atc: "N02BE51"))
        var sorted: [ItemRow] = []
        try catalog.forEachSorted { sorted.append($0) }
        #expect(sorted == [
            ItemRow(aptcode: "A", packageCode: "1000001", gtin: "04740000000017", name: "NEW NAME", producer: "NEW MAKER",
                    atc: "N02BE51", activeSubstance: "Paracetamolum", infoURL: "https://leaflet/A", imageURL: nil),
            yesterdays["B"]!,
        ])
    }

    @Test(arguments: [nil, 1, 2])
    func firstMentionGivesTheFieldsAndLaterOnesOnlyFillGaps(limit: Int?) throws {
        let temporary = TemporaryDirectory()
        var (catalog, writer) = try catalog(limit: limit, temporary)
        defer { withExtendedLifetime(writer) {} } // the overflow table lives on its connection
        let first = try catalog.add(offer("A", name: "FIRST", producer: "MAKER"))
        #expect(!first.existed)
        try catalog.add(offer("Z", name: "OTHER ITEM"))
        let second = try catalog.add(offer("A", name: "SECOND", packageCode: "1000001", producer: "OTHER", atc: "N02BE01"))
        #expect(second.existed)
        #expect(second.packageCode == nil, "the package code before this offer")
        try catalog.add(offer("Y", name: "ANOTHER ITEM"))
        let third = try catalog.add(offer("A", name: "THIRD", packageCode: "1000012", atc: "M01AE01"))
        #expect(third.existed)
        #expect(third.packageCode == "1000001")
        try catalog.add(offer("X", name: "THIRD ITEM"))
        let row = try catalog["A"]
        #expect(row?.name == "FIRST")
        #expect(row?.producer == "MAKER")
        #expect(row?.packageCode == "1000001")
        #expect(row?.atc == "N02BE01")
        #expect(row?.gtin == nil)
        #expect(try catalog.packageCode(of: "A") == "1000001")
        var sorted: [ItemRow] = []
        try catalog.forEachSorted { sorted.append($0) }
        #expect(sorted.map(\.aptcode) == ["A", "X", "Y", "Z"])
        #expect(sorted.first == row)
    }

    @Test(arguments: [nil, 1, 2])
    func carriedItemsNeverReplaceKnownOnesAndRowsComeOutInByteOrder(limit: Int?) throws {
        let temporary = TemporaryDirectory()
        var (catalog, writer) = try catalog(limit: limit, temporary)
        defer { withExtendedLifetime(writer) {} } // the overflow table lives on its connection
        try catalog.add(offer("b", name: "LOWER"))
        try catalog.add(offer("B", name: "UPPER"))
        try catalog.add(ItemRow(aptcode: "B", packageCode: "1000001", gtin: nil, name: "CARRIED", producer: nil, atc: nil, activeSubstance: nil))
        try catalog.add(ItemRow(aptcode: "A", packageCode: nil, gtin: nil, name: "CARRIED", producer: nil, atc: nil, activeSubstance: nil))
        #expect(try catalog["B"]?.name == "UPPER")
        #expect(try catalog.contains("A") && !catalog.contains("C"))
        var sorted: [String] = []
        try catalog.forEachSorted { sorted.append($0.aptcode) }
        #expect(sorted == ["A", "B", "b"])
    }
}
