import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// Issue 47, item 2: what the pharmacy checks are given, measured as a
/// stage of its own: the count in current and the price ratio over a
/// sample only where current holds the pharmacy, and the all-zero warning.
@Suite struct FeedMeasurementTests {
    @Test func currentsCountAndThePriceRatioWhereCurrentHoldsThePharmacy() throws {
        let temporary = TemporaryDirectory()
        let current = try CarriedStockTests.current(temporary)
        let (id, old) = try #require(current.pharmacies.sorted { $0.key < $1.key }.first { $0.value.itemCount > 0 })
        var rows: [OfferRow] = []
        try current.forEachOffers(of: id, batch: 100) { rows += $0 }
        // Tonight: the same items at twice the price.
        let doubled = FreshStockTests.offers(rows.enumerated().map {
            StockOffer(aptcode: $0.element.aptcode, name: "X", priceCents: $0.element.priceCents * 2, quantity: 0, line: $0.offset + 2)
        })
        let measured = try FeedMeasurement(previous: current, checks: StockDataChecks()).evidence(doubled, of: id)
        #expect(measured.items == rows.count && measured.currentItems == old.itemCount && measured.priceRatio?.ratio == 2 && measured.priceRatio?.items == min(rows.count, StockDataChecks().priceSample))
        // The price check off: no sample taken.
        let unsampled = try FeedMeasurement(previous: current, checks: StockDataChecks(maxPriceRatio: 0)).evidence(doubled, of: id)
        #expect(unsampled.currentItems == old.itemCount && unsampled.priceRatio == nil)
        // A pharmacy current does not hold, or a first night: only tonight's count.
        let new = try FeedMeasurement(previous: current, checks: StockDataChecks()).evidence(doubled, of: "no-such")
        let first = try FeedMeasurement(previous: nil, checks: StockDataChecks()).evidence(doubled, of: id)
        #expect(new.currentItems == nil && new.priceRatio == nil && first.currentItems == nil && first.items == rows.count)
        // Every quantity 0: a warning naming the pharmacy and the count; one in stock is enough to say nothing.
        let warning = FeedMeasurement.allQuantitiesZero(doubled, of: id, file: "f.txt")
        #expect(warning?.code == .allQuantitiesZero && warning?.file == "f.txt" && warning?.message == "every one of pharmacy \(id)'s \(rows.count) offers has quantity 0")
        let oneInStock = FreshStockTests.offers([StockOffer(aptcode: "A", name: "A", priceCents: 1, quantity: 1, line: 2)])
        #expect(FeedMeasurement.allQuantitiesZero(oneInStock, of: id, file: "f.txt") == nil)
    }
}
