import IngestAdapters
import IngestCore
import Testing
@testable import IngestPipeline

/// Issue 47, item 2: the checks on each feed as a stage of their own. The
/// judge takes what the loader measured and answers with a value: the
/// problem that rejects the feed, the warnings `--force` leaves, the earlier
/// copy that gives way; it remembers every stock for the feeds after.
@Suite struct FeedJudgeTests {
    static let gates = GateCatalog.builtIn(gates: QualityGates(), checks: StockDataChecks(duplicateMinItems: 10)).gates

    static func candidate(_ name: String) -> StockFeedPlan.Candidate {
        StockFeedPlan.Candidate(file: FeedFile(name: name, bytes: []), adapter: RAXStockAdapter(), header: nil, part: nil, sha256: nil)
    }

    func judge(_ judge: inout FeedJudge, _ id: String, items: Int = 20, currentItems: Int? = nil, digest: UInt64 = 7, exportedAt: Int64,
               index: Int) -> FeedJudge.Judgement {
        judge.judge(PharmacyEvidence(pharmacyID: id, items: items, currentItems: currentItems), digest: digest, file: "rax_\(id).txt",
                    exportedAt: exportedAt, loaded: Self.candidate("rax_\(id).txt"), index: index)
    }

    @Test func ofTwoFeedsWithTheSameLinesTheNewerIsTheCopyWhicheverCameFirst() {
        var judge = FeedJudge(gates: Self.gates, force: false, currentVersion: "v1")
        // The newer export is judged first: nothing to compare with yet.
        let newer = self.judge(&judge, "1000", exportedAt: 200, index: 0)
        #expect(newer.problem == nil && newer.eviction == nil)
        // The older one arrives: the newer, already written, gives way.
        let older = self.judge(&judge, "2000", exportedAt: 100, index: 1)
        #expect(older.problem == nil)
        #expect(older.eviction?.pharmacyID == "1000" && older.eviction?.index == 0)
        #expect(older.eviction?.problem.message
                == "the same 20 item lines (aptcode, price, quantity) as pharmacy 2000's rax_2000.txt: rax_1000.txt, the newer file, is taken for a copy and pharmacy 1000 keeps its data")
        // A third, newest, copy of the same lines is rejected itself, against the original now held.
        let third = self.judge(&judge, "3000", exportedAt: 300, index: 2)
        #expect(third.problem?.reason == .duplicateStock && third.eviction == nil)
        #expect(third.problem?.message.contains("as pharmacy 2000's rax_2000.txt") == true)
        #expect(judge.summaries.map(\.check) == ["price_shift", "item_count_drop", "duplicate_stock"])
        #expect(judge.summaries[2].evaluated == 3 && judge.summaries[2].failed == ["1000", "3000"])
    }

    @Test func stockCarriedFromCurrentIsNeverTheCopy() {
        var judge = FeedJudge(gates: Self.gates, force: false, currentVersion: "v1")
        #expect(judge.judgeCarried("1000", items: 20, digest: 7, lastRefresh: 50, index: 0) == nil)
        let copy = self.judge(&judge, "2000", exportedAt: 10, index: 1)
        #expect(copy.problem?.message
                == "the same 20 item lines (aptcode, price, quantity) as the stock pharmacy 1000 keeps from version v1: rax_2000.txt is taken for a copy and pharmacy 2000 keeps its data")
        // Carried after a feed tonight with its lines: that feed gives way.
        var later = FeedJudge(gates: Self.gates, force: false, currentVersion: "v1")
        _ = self.judge(&later, "0500", exportedAt: 10, index: 0)
        let eviction = later.judgeCarried("1000", items: 20, digest: 7, lastRefresh: 50, index: 1)
        #expect(eviction?.pharmacyID == "0500" && eviction?.index == 0)
    }

    @Test func forcedFailuresWarnAndEvictNothing() {
        var judge = FeedJudge(gates: Self.gates, force: true, currentVersion: "v1")
        let collapsed = self.judge(&judge, "1000", items: 20, currentItems: 100, digest: 1, exportedAt: 100, index: 0)
        #expect(collapsed.problem == nil && collapsed.warnings.map(\.code) == [.checkForced])
        #expect(collapsed.warnings.first?.message == "forced past item_count_drop: item count fell from 100 to 20 (80.0 %), over the 50 % allowed")
        _ = self.judge(&judge, "2000", exportedAt: 200, index: 1)
        let older = self.judge(&judge, "3000", exportedAt: 100, index: 2)
        #expect(older.eviction == nil && judge.summaries[2].forced)
    }

    /// A feed an earlier check rejects is nobody's original: it is not held,
    /// and the duplicate check says nothing of it.
    @Test func aRejectedFeedIsNeitherJudgedAsADuplicateNorHeld() {
        var judge = FeedJudge(gates: Self.gates, force: false, currentVersion: "v1")
        let collapsed = self.judge(&judge, "1000", items: 20, currentItems: 100, exportedAt: 100, index: 0)
        #expect(collapsed.problem?.reason == .itemCountDrop)
        #expect(judge.summaries[2].evaluated == 0)
        let next = self.judge(&judge, "2000", exportedAt: 200, index: 1)
        #expect(next.problem == nil && next.eviction == nil)
    }
}
