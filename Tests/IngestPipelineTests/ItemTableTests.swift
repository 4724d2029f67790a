import IngestCore
import IngestSnapshot
import Testing
@testable import IngestPipeline

/// Issue 47, item 2: the items table as a stage of its own: every item of
/// the catalogue once, in byte order, in batches, with the register's ATC
/// code winning (and a warning naming both) where the feed disagrees.
@Suite struct ItemTableTests {
    @Test func everyItemOnceInByteOrderEnrichedWithTheConflictWarned() throws {
        let package = MedicinePackage(packageCode: "1234567", name: "ONE", form: nil, strength: nil, packSize: nil, atc: "N02BE01",
                                      activeSubstance: "Paracetamolum", leafletURL: "https://example.org/one", spcURL: nil, prescription: nil, line: 2)
        let table = ItemTable(enrichment: ItemEnrichment(register: ["1234567": package], gs1: [:]), batchRows: 2)
        var items = ItemCatalog()
        for (aptcode, code, atc) in [("b2", nil, nil), ("A1", "1234567", "M01AE01"), ("C3", "1234567", nil)] as [(String, String?, String?)] {
            _ = try items.add(StockOffer(aptcode: aptcode, packageCode: code, name: aptcode, atc: atc, priceCents: 1, quantity: 1, line: 2))
        }
        var warnings = Journal<Warning>()
        var batches: [[ItemRow]] = []
        try table.write(&items, warnings: &warnings, write: { batches.append($0) })
        #expect(batches.map { $0.map(\.aptcode) } == [["A1", "C3"], ["b2"]])
        let rows = batches.joined()
        #expect(rows.map(\.atc) == ["N02BE01", "N02BE01", nil] && rows.map(\.infoURL) == ["https://example.org/one", "https://example.org/one", nil])
        #expect(warnings.map(\.code) == [.atcConflict] && warnings.first?.key == "A1")
        #expect(warnings.first?.message == "item A1 (package 1234567): the stock feed says ATC M01AE01, the register N02BE01; the register's is kept")
    }
}
