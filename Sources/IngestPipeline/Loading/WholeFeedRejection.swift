import IngestCore
import IngestSnapshot

/// A loaded feed that a check rejects whole: every one of its offers
/// becomes a reject with the check's reason and line, so nothing of it is
/// lost, and the feed's line in the report turns rejected (`RejectedFeed`).
enum WholeFeedRejection {
    /// The prefix every reject of such a feed carries before the check's own words.
    static func message(_ problem: StockDataChecks.Problem) -> String {
        "feed rejected whole (\(problem.reason)): \(problem.message)"
    }

    static func reject(_ offer: StockOffer, file: String, _ problem: StockDataChecks.Problem) -> Reject {
        Reject(file: file, line: offer.line, key: offer.aptcode, reason: problem.reason, message: message(problem))
    }

    /// The feed's offers as rejects, in their key order.
    static func rejects(of offers: SortedOffers, file: String, _ problem: StockDataChecks.Problem,
                        into journal: inout Journal<Reject>) throws {
        try offers.forEach { try journal.append(reject($0, file: file, problem)) }
    }
}
