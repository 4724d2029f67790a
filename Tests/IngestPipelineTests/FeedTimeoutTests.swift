import Dispatch
import Foundation
import IngestAdapters
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// `--feed-timeout`: a feed whose parse does not end is given up on and the
/// night goes on (FEEDS.md: one bad file never stops the night).
@Suite struct FeedTimeoutTests {
    /// RAX, except that a file whose name starts with `stall` never finishes
    /// parsing until `release` is signalled: a parse stuck where nothing
    /// can interrupt it (deep in a C library).
    struct StallingRAXAdapter: StockFeedAdapter {
        let rax = RAXStockAdapter()
        let release: DispatchSemaphore
        var name: String { rax.name }
        var summary: String { rax.summary }
        func recognises(_ file: FeedFile) -> Bool { rax.recognises(file) }
        func readHeader(_ file: FeedFile) throws(FeedFailure) -> StockFeedHeader { try rax.readHeader(file) }
        func parse(_ file: FeedFile, into output: inout FeedOutput<StockOffer>) -> StockFeedHeader? {
            if file.name.hasPrefix("stall") { _ = release.wait(timeout: .now() + 120) }
            return rax.parse(file, into: &output)
        }
    }

    @Test func aStalledFeedIsRejectedAndTheOthersPublish() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        func rax(_ name: String, pharmacy: String, exported: String, price: String) {
            var feed = RAXFeedBuilder(pharmacyID: pharmacy, exportedAt: exported)
            feed.item("MM\(pharmacy)", name: "TOODE", price: price)
            temporary.write("feeds/\(name)", bytes: feed.bytes)
        }
        let release = DispatchSemaphore(value: 0)
        defer { for _ in 0..<4 { release.signal() } } // lets the stuck thread end with the test
        func run() throws -> RunReport {
            var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: "\(temporary.path)/snapshots",
                                        mappingsDirectory: RepositoryFiles.mappingsDirectory, parseThreads: 2)
            options.feedTimeout = 3 // ample for a one-line feed on a busy machine; the stalled one waits it out
            return try ImportRun(options: options, catalog: AdapterCatalog([StallingRAXAdapter(release: release)])).run()
        }
        for pharmacy in ["1", "2", "3"] { rax("rax_\(pharmacy).txt", pharmacy: pharmacy, exported: "20240101T1200", price: "1,00") }
        let first = try run()
        #expect(first.publishedVersion != nil)

        // Night two: pharmacy 2's new export stalls; 1 and 3 load, 2 keeps night one's data.
        try FileManager.default.removeItem(atPath: "\(feeds)/rax_2.txt")
        rax("rax_1.txt", pharmacy: "1", exported: "20240102T1200", price: "2,00")
        rax("stall_2.txt", pharmacy: "2", exported: "20240102T1200", price: "2,00")
        rax("rax_3.txt", pharmacy: "3", exported: "20240102T1200", price: "2,00")
        let second = try run()
        let version = try #require(second.publishedVersion)
        let stalled = try #require(second.feeds.first { $0.file == "stall_2.txt" })
        #expect(stalled.outcome == .rejected)
        #expect(stalled.message == "limit_exceeded: pharmacy 2's feeds were not parsed within 3 s (limit feed_timeout); the run went on without them")
        #expect(second.feeds.filter { $0.outcome == .loaded }.map(\.file) == ["rax_1.txt", "rax_3.txt"])
        #expect(second.carriedOver.map(\.key) == ["2"])
        let prices = try SnapshotQuery(SnapshotDirectory(path: "\(temporary.path)/snapshots").snapshotPath(version))
            .rows("SELECT pharmacy_id || ':' || price_cents FROM offers ORDER BY pharmacy_id").map { $0[0] ?? "" }
        #expect(prices == ["1:200", "2:100", "3:200"])
    }
}
