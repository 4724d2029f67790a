import IngestCore
import Testing
@testable import IngestPipeline

@Suite struct PharmacyFeedParserTests {
    private func offers(_ aptcodes: [String]) -> [StockOffer] {
        aptcodes.enumerated().map { StockOffer(aptcode: $1, name: "N", priceCents: 1, quantity: 1, line: $0 + 1) }
    }

    @Test func keyOrderIsByteOrderAndStrict() {
        #expect(PharmacyFeedParser.isInKeyOrder(offers([])))
        #expect(PharmacyFeedParser.isInKeyOrder(offers(["A1"])))
        #expect(PharmacyFeedParser.isInKeyOrder(offers(["A1", "A2", "B", "a"])), "upper case sorts before lower case in bytes")
        #expect(!PharmacyFeedParser.isInKeyOrder(offers(["A1", "B", "A2"])))
        #expect(!PharmacyFeedParser.isInKeyOrder(offers(["a", "B"])))
        #expect(!PharmacyFeedParser.isInKeyOrder(offers(["A1", "A1"])), "a repeated key is not in strict order")
    }
}
