import IngestCore
import IngestSnapshot
import Testing
@testable import IngestPipeline

@Suite struct ItemCatalogTests {
    private func offer(_ aptcode: String, name: String, packageCode: String? = nil, gtin: String? = nil,
                       producer: String? = nil, atc: String? = nil) -> StockOffer {
        StockOffer(aptcode: aptcode, packageCode: packageCode, gtin: gtin, name: name, producer: producer, atc: atc,
                   priceCents: 100, quantity: 1, line: 1)
    }

    @Test func firstMentionGivesTheFieldsAndLaterOnesOnlyFillGaps() {
        var catalog = ItemCatalog()
        let first = catalog.add(offer("A", name: "FIRST", producer: "MAKER"))
        #expect(!first.existed)
        let second = catalog.add(offer("A", name: "SECOND", packageCode: "1000001", producer: "OTHER", atc: "N02BE01"))
        #expect(second.existed)
        #expect(second.packageCode == nil, "the package code before this offer")
        let third = catalog.add(offer("A", name: "THIRD", packageCode: "1000012", atc: "M01AE01"))
        #expect(third.packageCode == "1000001")
        let row = catalog["A"]
        #expect(row?.name == "FIRST")
        #expect(row?.producer == "MAKER")
        #expect(row?.packageCode == "1000001")
        #expect(row?.atc == "N02BE01")
        #expect(row?.gtin == nil)
        #expect(catalog.packageCode(of: "A") == "1000001")
    }

    @Test func carriedItemsNeverReplaceKnownOnesAndRowsComeOutInByteOrder() {
        var catalog = ItemCatalog()
        catalog.add(offer("b", name: "LOWER"))
        catalog.add(offer("B", name: "UPPER"))
        catalog.add(ItemRow(aptcode: "B", packageCode: "1000001", gtin: nil, name: "CARRIED", producer: nil, atc: nil, activeSubstance: nil))
        catalog.add(ItemRow(aptcode: "A", packageCode: nil, gtin: nil, name: "CARRIED", producer: nil, atc: nil, activeSubstance: nil))
        #expect(catalog.count == 3)
        #expect(catalog["B"]?.name == "UPPER")
        #expect(catalog.contains("A") && !catalog.contains("C"))
        #expect(catalog.sortedRows().map(\.aptcode) == ["A", "B", "b"])
    }
}
