import IngestAdapters
import IngestCore
import IngestSnapshot
import Testing
@testable import IngestPipeline

/// Issue 47, item 2: a feed rejected whole after it loaded, and the
/// report assembled from what the stages return. Every offer becomes a
/// reject with its own line; absorbing the part turns the feed's line
/// rejected with its records counted under the check's reason.
@Suite struct WholeFeedRejectionTests {
    static let problem = StockDataChecks.Problem(reason: .priceShift, message: "prices moved")

    @Test func everyOfferIsARejectAndTheFeedLineTurnsRejected() throws {
        let offers = FreshStockTests.offers([
            StockOffer(aptcode: "A1", name: "A", priceCents: 100, quantity: 1, line: 4),
            StockOffer(aptcode: "B2", name: "B", priceCents: 200, quantity: 2, line: 2),
        ])
        var part = LoadReportPart(spillPrefix: nil)
        var feed = FeedResult(file: "rax_1000.txt", size: 10, sha256: "", kind: FeedKind.stock.rawValue, adapter: "RAX", outcome: .loaded)
        feed.pharmacyID = "1000"
        feed.read = 3
        feed.accepted = 2
        feed.rejectsByReason[.badPrice] = 1
        var other = feed
        other.pharmacyID = "2000"
        part.feeds = [feed, other]
        part.rejectedFeeds = [RejectedFeed(pharmacyID: "1000", problem: Self.problem)]
        try WholeFeedRejection.rejects(of: offers, file: "rax_1000.txt", Self.problem, into: &part.rejects)
        part.carriedOver = [CarryOver(kind: .pharmacy, key: "1000", fromVersion: "v1", lastRefresh: "2025-11-19T23:05:00+02:00",
                                      dropped: false, offers: 9)]
        var report = RunReport(dryRun: true)
        try report.absorb(part)
        #expect(report.rejects.map { "\($0.file):\($0.line) \($0.key) \($0.reason)" } == ["rax_1000.txt:4 A1 price_shift", "rax_1000.txt:2 B2 price_shift"])
        #expect(report.rejects.allSatisfy { $0.message == "feed rejected whole (price_shift): prices moved" } && report.rejects.count == 2)
        #expect(report.feeds[0].outcome == .rejected && report.feeds[0].accepted == 0 && report.feeds[0].reason == "price_shift")
        #expect(report.feeds[0].rejectsByReason == [.badPrice: 1, .priceShift: 2] && report.feeds[0].message == "price_shift: prices moved")
        // Only the rejected pharmacy's line changes.
        #expect(report.feeds[1].outcome == .loaded && report.feeds[1].accepted == 2)
        #expect(report.carriedOver.map(\.key) == ["1000"] && report.checks.isEmpty)
    }

    @Test func theNightsEndSetsTheChecksAndTheStaleCount() throws {
        var part = LoadReportPart(spillPrefix: nil)
        part.checks = [CheckSummary(check: "price_shift", limit: "3x")]
        part.stalePharmacies = 4
        var report = RunReport(dryRun: true)
        try report.absorb(part)
        #expect(report.checks.map(\.check) == ["price_shift"] && report.stalePharmacies == 4 && report.feeds.isEmpty)
    }
}
