import IngestAdapters
import IngestCore
import IngestSnapshot
import Testing
@testable import IngestPipeline

/// Issue 47, item 2: writing tonight's offers as a stage of its own. It
/// hands the writer rows in batches, in key order, priced with the list of
/// the export date, and answers with the items whose package code this
/// feed brought after an earlier pharmacy's offers were written without it.
@Suite struct FreshStockTests {
    static func offers(_ offers: [StockOffer]) -> SortedOffers {
        var builder = SortedOffers.Builder()
        for offer in offers { builder.add(offer) }
        return builder.build(.memory(offers))
    }

    @Test func offersGoOutInBatchesPricedAndTheLateItemsAreNamed() throws {
        var catalog = ReimbursementCatalog()
        catalog.add(code: "1234567", limitCents: 500, tiers: [ReimbursementTier(rate: 50, diagnoses: nil, info: nil)])
        let stock = FreshStock(pricer: TierPricer(rules: .statutory, catalog: catalog), history: nil, batchRows: 2)
        let exported = try #require(ExportTimestamp.parseISO8601("2025-11-20T23:05:00+02:00"))
        var items = ItemCatalog()
        // An earlier pharmacy named MM1 without its package code.
        _ = try items.add(StockOffer(aptcode: "MM1", name: "ONE", priceCents: 700, quantity: 1, line: 2))
        let tonight = Self.offers([
            StockOffer(aptcode: "MM1", packageCode: "1234567", name: "ONE", priceCents: 800, quantity: 3, line: 2),
            StockOffer(aptcode: "MM2", packageCode: "1234567", name: "TWO", priceCents: 900, quantity: nil, line: 3),
            StockOffer(aptcode: "MM3", name: "THREE", priceCents: 100, quantity: 0, line: 4),
        ])
        var batches: [[OfferRow]] = []
        let late = try stock.write(tonight, of: "1000", exportedAt: exported, items: &items, write: { batches.append($0) })
        // MM1 is late (known before, without its code); MM2 is new, priced as it is written.
        #expect(late == ["MM1"])
        #expect(batches.map { $0.map(\.aptcode) } == [["MM1", "MM2"], ["MM3"]])
        let rows = batches.joined()
        #expect(rows.map(\.priceCents) == [800, 900, 100] && rows.map(\.quantity) == [3, nil, 0])
        // A first night has no history: every price is tonight's.
        #expect(rows.allSatisfy { $0.priceSince == exported.iso8601 })
        #expect(rows.map(\.limitPriceCents) == [500, 500, nil])
        #expect(try items.packageCode(of: "MM1") == "1234567" && items.contains("MM3"))
    }

    @Test func withoutAReimbursementListNothingIsLateOrPriced() throws {
        let stock = FreshStock(pricer: TierPricer(rules: nil, catalog: ReimbursementCatalog()), history: nil, batchRows: 8)
        let exported = try #require(ExportTimestamp.parseISO8601("2025-11-20T23:05:00+02:00"))
        var items = ItemCatalog()
        _ = try items.add(StockOffer(aptcode: "MM1", name: "ONE", priceCents: 700, quantity: 1, line: 2))
        var rows: [OfferRow] = []
        let late = try stock.write(Self.offers([StockOffer(aptcode: "MM1", packageCode: "1234567", name: "ONE", priceCents: 800, quantity: 3, line: 2)]),
                                   of: "1000", exportedAt: exported, items: &items, write: { rows += $0 })
        #expect(late.isEmpty && rows.count == 1 && rows[0].limitPriceCents == nil)
    }
}
