import IngestAdapters
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// Issue 47, item 2: evicting a copy as a stage of its own. The copy's
/// offers were handed to the writer and not kept, so its feed is read
/// again: every record the adapter accepts is a reject with its own line
/// and the check's reason, and nothing else is counted twice.
@Suite struct DuplicateEvictionTests {
    @Test func theCopysFeedIsReadAgainEachRecordARejectWithItsLine() throws {
        let name = "rax_5060_201012302305.txt"
        let file = try FeedFile.open(path: RepositoryFiles.feed(name), name: name)
        var parsed = FeedOutput<StockOffer>(file: name)
        _ = RAXStockAdapter().parse(file, into: &parsed)
        #expect(parsed.accepted > 0)
        let problem = StockDataChecks.Problem(reason: .duplicateStock, message: "a copy")
        let eviction = FeedJudge.Eviction(pharmacyID: "5060", index: 0,
                                          candidate: StockFeedPlan.Candidate(file: file, adapter: RAXStockAdapter(), header: nil, part: nil, sha256: nil),
                                          problem: problem)
        let rejects = try DuplicateEviction.rejects(of: eviction, spillPrefix: nil)
        defer { rejects.discard() }
        #expect(rejects.map(\.line) == parsed.records.map(\.line) && rejects.map(\.key) == parsed.records.map(\.aptcode))
        #expect(rejects.allSatisfy { $0.file == name && $0.reason == .duplicateStock && $0.message == "feed rejected whole (duplicate_stock): a copy" })
        // The feed's own rejects were counted when it loaded: none comes again.
        #expect(rejects.count == parsed.accepted)
    }
}
