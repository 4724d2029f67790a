import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// Issue 47, item 3: a gate added in one file and registered with one line
/// reaches everything the built-in ones reach: the verdict, the block and
/// `--force`, the report's lines, the manifest and the metrics.
@Suite struct ToyGateTests {
    func night(_ temporary: TemporaryDirectory, day: Int, gates: [any Gate], force: Bool = false) throws -> RunReport {
        var options = ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/snapshots",
                                    mappingsDirectory: RepositoryFiles.mappingsDirectory, parseThreads: 2,
                                    asOf: Date(timeIntervalSince1970: 1_716_174_000 + Double(day) * 86_400))
        options.additionalGates = gates
        options.force = force
        return try ImportRun(options: options).run()
    }

    func send(_ temporary: TemporaryDirectory, _ id: String, items: Int, day: Int) {
        var feed = RAXFeedBuilder(pharmacyID: id, exportedAt: "202405\(19 + day)T2305")
        for index in 0..<items { feed.item(String(format: "MM%07d", index), price: "\(index + 1),00") }
        temporary.write("feeds/rax_\(id).txt", bytes: feed.bytes)
    }

    @Test func aNightGateBlocksNamesItselfAndIsForced() throws {
        let temporary = TemporaryDirectory()
        let gate = StaleShareGate(maxStalePercent: 50)
        for id in ["1000", "2000", "3000", "4000"] { send(temporary, id, items: 10, day: 0) }
        let first = try night(temporary, day: 0, gates: [gate])
        let version = try #require(first.publishedVersion)
        #expect(first.gates.isEmpty) // nothing in current to compare with: no gate speaks on a first night
        send(temporary, "1000", items: 10, day: 1)
        for id in ["2000", "3000", "4000"] { try FileManager.default.removeItem(atPath: "\(temporary.path)/feeds/rax_\(id).txt") }
        let second = try night(temporary, day: 1, gates: [gate])
        #expect(second.publishedVersion == nil)
        #expect(second.gates.map { "\($0.gate) \($0.passed)" } == ["fresh_share true", "offers true", "pharmacies true", "pharmacies_rise true",
                                                                  "unregistered_pharmacies true", "stale_share false"])
        #expect(second.blocked == .gates([try #require(second.gates.last?.failure)]))
        #expect(second.blocked?.description == "gate stale_share: 3 of 4 pharmacies stale, 75.0 % (at most 50 % allowed) (--force publishes anyway)")
        #expect(try SnapshotDirectory(path: "\(temporary.path)/snapshots").currentVersion() == version)
        #expect(ReportFormatter().format(second).contains("gate stale_share: 3 of 4 pharmacies stale"))
        let metrics = RunMetrics(startedAt: Date(), finishedAt: Date(), exitCode: 3, report: second).text(previous: nil)
        #expect(metrics.contains("ingest_quality_gate_failed{gate=\"stale_share\"} 1"))
        #expect(metrics.contains("ingest_quality_gate_failed{gate=\"offers\"} 0"))
        let forced = try night(temporary, day: 1, gates: [gate], force: true)
        #expect(forced.publishedVersion != nil && forced.forcedGates.map(\.gate) == ["stale_share"])
    }

    @Test func aPharmacyCheckRejectsTheFeedWhichCarriesOver() throws {
        let temporary = TemporaryDirectory()
        for id in ["1000", "2000"] { send(temporary, id, items: 10, day: 0) }
        _ = try night(temporary, day: 0, gates: [ItemCeilingCheck(maxItems: 12)])
        send(temporary, "2000", items: 14, day: 1)
        send(temporary, "1000", items: 11, day: 1)
        let report = try night(temporary, day: 1, gates: [ItemCeilingCheck(maxItems: 12)])
        #expect(report.publishedVersion != nil)
        let feed = try #require(report.feeds.first { $0.pharmacyID == "2000" })
        #expect(feed.outcome == .rejected && feed.reason == "item_ceiling")
        #expect(feed.message == "item_ceiling: 14 items, over the 12 a pharmacy may send")
        #expect(report.rejectCounts[RejectReason(rawValue: "item_ceiling")] == 14)
        #expect(report.carriedOver.map(\.key) == ["2000"])
        let summary = try #require(report.checks.last)
        #expect("\(summary.check) \(summary.limit) \(summary.evaluated) \(summary.failed) \(summary.forced) \(summary.closest ?? "-") \(summary.margin ?? -1)"
                == "item_ceiling ≤ 12 items 2 [\"2000\"] false 1000: 11 items 1.0")
        #expect(report.checks.map(\.check) == ["price_shift", "item_count_drop", "duplicate_stock", "item_ceiling"])
        #expect(ReportFormatter().format(report).contains("item_ceiling (limit ≤ 12 items): "))
        let metrics = RunMetrics(startedAt: Date(), finishedAt: Date(), exitCode: 0, report: report).text(previous: nil)
        #expect(metrics.contains("ingest_check_failed{check=\"item_ceiling\"} 1"))
        #expect(metrics.contains("ingest_check_margin{check=\"item_ceiling\"} 1"))
    }
}
