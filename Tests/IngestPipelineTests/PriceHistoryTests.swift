import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// SNAPSHOT.md "Price history" (schema 5): the price in force is the
/// offer's (`price_since`), `price_history` a row per replaced price,
/// carried night to night, the rows whose price went out of force before
/// the window dropped; `prices_over_time` is both. (The model test holds the table on every night of
/// its scenarios; retention needs more days than they span.)
@Suite struct PriceHistoryTests {
    @Test func rowsOlderThanTheWindowGoButThePriceInForceAtItsStartStays() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        let snapshots = "\(temporary.path)/snapshots"
        // Night n: exports 2025-11-20 + n at 23:05, the run at 06:00 the next morning.
        let prices = ["1,00", "2,00", "2,00", "3,00", "4,00"]
        for (night, price) in prices.enumerated() {
            for file in try FileManager.default.contentsOfDirectory(atPath: feeds) { try FileManager.default.removeItem(atPath: "\(feeds)/\(file)") }
            var feed = RAXFeedBuilder(pharmacyID: "100", exportedAt: String(format: "202511%02dT2305", 20 + night))
            feed.item("MM1", price: price)
            feed.item("MM2", price: "5,00")
            temporary.write("feeds/rax_100.txt", bytes: feed.bytes)
            var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots, mappingsDirectory: RepositoryFiles.mappingsDirectory,
                                        parseThreads: 2, asOf: Date(timeIntervalSince1970: TimeInterval(1_763_697_600 + night * 86_400)))
            options.historyDays = 2
            #expect(try ImportRun(options: options).run().publishedVersion != nil)
        }
        let query = try SnapshotQuery("\(snapshots)/current")
        // The window starts 2025-11-23 06:00: 21 November's 2.00 was in force then and stays; 20 November's 1.00 goes.
        #expect(query.rows("SELECT aptcode, since, price_cents FROM price_history ORDER BY aptcode, since") == [
            ["MM1", "2025-11-21T23:05:00+02:00", "200"],
            ["MM1", "2025-11-23T23:05:00+02:00", "300"],
        ].map { $0.map(Optional.some) })
        #expect(query.rows("SELECT aptcode, price_since, price_cents FROM offers ORDER BY aptcode") == [
            ["MM1", "2025-11-24T23:05:00+02:00", "400"],
            ["MM2", "2025-11-20T23:05:00+02:00", "500"],
        ].map { $0.map(Optional.some) })
        #expect(query.rows("SELECT aptcode, since, price_cents FROM prices_over_time ORDER BY aptcode, since") == [
            ["MM1", "2025-11-21T23:05:00+02:00", "200"],
            ["MM1", "2025-11-23T23:05:00+02:00", "300"],
            ["MM1", "2025-11-24T23:05:00+02:00", "400"],
            ["MM2", "2025-11-20T23:05:00+02:00", "500"],
        ].map { $0.map(Optional.some) })
    }
}
