import Foundation
import IngestCore
import IngestGenerator
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// Issue 22: generated nights where the second night is well-formed and
/// wrong; each fault caught with its reason, its pharmacy carried over.
@Suite struct WrongDataTests {
    final class Nights {
        let temporary = TemporaryDirectory()
        var snapshots: String { "\(temporary.path)/snapshots" }

        func generate(_ name: String, daysLater: Int = 0, priceChangeRate: Double = 0, wrongData: [WrongDataFault] = []) throws -> GroundTruth {
            var options = FeedGenerator.Options(pharmacies: 14, items: 80, seed: 22, formats: [.rax, .noom],
                                                rulesSource: "\(RepositoryFiles.mappingsDirectory)/patient_price_rules.toml")
            options.daysLater = daysLater
            options.priceChangeRate = priceChangeRate
            options.wrongData = wrongData
            return try FeedGenerator(options: options).generate(into: "\(temporary.path)/\(name)")
        }

        /// Night `n` (0, 1, …) run the morning after its exports, 2025-11-21 + n.
        func run(_ name: String, night: Int, force: Bool = false) throws -> RunReport {
            var options = ImportOptions(feedsDirectory: "\(temporary.path)/\(name)/feeds", snapshotsDirectory: snapshots,
                                        mappingsDirectory: "\(temporary.path)/\(name)/mappings", parseThreads: 2,
                                        asOf: Date(timeIntervalSince1970: 1_763_697_600 + TimeInterval(night * 86_400)))
            options.force = force
            return try ImportRun(options: options).run()
        }
    }

    /// A first night's prices start at each pharmacy's export; a pharmacy
    /// evicted afterwards as another's copy leaves no price behind. Pharmacy
    /// 1000's feed is the copy (exported an hour later) but is written first,
    /// so it is evicted when 2000's original arrives.
    @Test func aCopiedBranchEvictedOnAFirstNightLeavesNoHistoryBehind() throws {
        let temporary = TemporaryDirectory()
        for (id, hoursAgo) in [("1000", 10.0), ("2000", 11.0), ("3000", 12.0)] {
            var feed = RAXFeedBuilder(pharmacyID: id, exportedAt: RAXFeedBuilder.exportTime(daysAgo: hoursAgo / 24))
            for index in 0..<60 { feed.item(String(format: "MM%07d", index), price: "\(index + (id == "3000" ? 2 : 1)),00") }
            temporary.write("feeds/rax_\(id).txt", bytes: feed.bytes)
        }
        let options = ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/s",
                                    mappingsDirectory: RepositoryFiles.mappingsDirectory, parseThreads: 2)
        let report = try ImportRun(options: options).run()
        #expect(report.feeds.filter { $0.reason == "duplicate_stock" }.compactMap(\.pharmacyID) == ["1000"])
        let query = try SnapshotQuery("\(temporary.path)/s/current")
        let offers = query.rows("SELECT pharmacy_id, aptcode, price_cents FROM offers ORDER BY 1, 2")
        #expect(Set(offers.map { $0[0] }) == ["2000", "3000"])
        #expect(query.rows("SELECT pharmacy_id, aptcode, price_cents FROM prices_over_time ORDER BY 1, 2") == offers)
        #expect(query.rows("SELECT count(*) FROM price_history") == [["0"]])
        #expect(query.rows("SELECT DISTINCT o.price_since = p.last_refresh FROM offers o JOIN pharmacies p ON p.id = o.pharmacy_id") == [["1"]])
    }

    @Test func kroonsLabelledEuroADecimalSlipACopiedBranchAndACollapseAreEachCaughtAndCarriedOver() throws {
        let nights = Nights()
        _ = try nights.generate("night0")
        let first = try nights.run("night0", night: 0)
        #expect(first.publishedVersion != nil)
        #expect(first.checks.allSatisfy { $0.evaluated == 0 || $0.check == "duplicate_stock" }) // nothing in current to compare with

        let truth = try nights.generate("night1", daysLater: 1, priceChangeRate: 0.02, wrongData: WrongDataFault.allCases)
        #expect(truth.wrongData.count == 5)
        let report = try nights.run("night1", night: 1)
        let version = try #require(report.publishedVersion)
        let manifest = try SnapshotDirectory(path: nights.snapshots).readManifest(version)
        for (file, fault) in truth.wrongData.sorted(by: { $0.key < $1.key }) {
            let expected = try #require(truth.feeds[file])
            let input = try #require(manifest.inputs.first { $0.file == file && $0.outcome != "carried_over" }, "\(file)")
            #expect(input.outcome == expected.outcome, "\(fault): \(file)")
            #expect(input.rejectsByReason == expected.rejectsByReason, "\(fault): \(file)")
            #expect(input.read == input.accepted + input.rejected)
        }
        var reasons: [String: String?] = [:]
        for (file, fault) in truth.wrongData { reasons[fault] = manifest.inputs.first { $0.file == file }?.reason }
        #expect(reasons["kroons-as-euro"] == "price_shift")
        #expect(reasons["decimal-slip"] == "price_shift")
        #expect(reasons["duplicate-branch"] == "duplicate_stock")
        #expect(reasons["item-count-collapse"] == "item_count_drop")
        #expect(reasons["zero-stock"] == .some(nil))

        // The messages name the ratio and the likely cause.
        let kroons = try #require(report.feeds.first { $0.file == truth.wrongData.first { $0.value == "kroons-as-euro" }?.key })
        #expect(kroons.message?.contains("near 15.6466: prices in Estonian kroons labelled EUR") == true)
        let slip = try #require(report.feeds.first { $0.file == truth.wrongData.first { $0.value == "decimal-slip" }?.key })
        #expect(slip.message?.contains("near 100: a decimal-point slip") == true)

        // Rejected pharmacies keep yesterday's data, stale; the zero-stock one loads with a warning.
        let rejected = Set(report.feeds.filter { $0.reason.map(["price_shift", "duplicate_stock", "item_count_drop"].contains) == true }.compactMap(\.pharmacyID))
        #expect(rejected.count == 4)
        #expect(Set(report.carriedOver.map(\.key)) == rejected)
        let db = try SnapshotQuery("\(nights.snapshots)/current")
        for id in rejected { #expect(db.value("SELECT stale FROM pharmacies WHERE id = '\(id)'") == "1", "\(id)") }
        #expect(report.warnings.contains { $0.code == .allQuantitiesZero })
        #expect(db.int("SELECT count(*) FROM offers") == first.rowCounts["offers"])
        // Every check is listed with what it judged and what it failed.
        let byCheck = Dictionary(uniqueKeysWithValues: report.checks.map { ($0.check, $0) })
        #expect(byCheck["price_shift"]?.failed.count == 2)
        #expect(byCheck["item_count_drop"]?.failed.count == 1)
        #expect(byCheck["duplicate_stock"]?.failed.count == 1)
        #expect(ReportFormatter().format(report).contains("price_shift (limit 0.5–2): "))
    }

    @Test func aNormalNightWithSomePricesChangedPassesEveryCheck() throws {
        let nights = Nights()
        _ = try nights.generate("night0")
        _ = try nights.run("night0", night: 0)
        _ = try nights.generate("night1", daysLater: 1, priceChangeRate: 0.02)
        let report = try nights.run("night1", night: 1)
        #expect(report.publishedVersion != nil)
        #expect(report.checks.map(\.check) == ["price_shift", "item_count_drop", "duplicate_stock"])
        #expect(report.checks.allSatisfy { $0.failed.isEmpty && $0.evaluated > 0 })
        #expect(report.checks.first?.margin ?? 0 > 1.5) // the closest median ratio stays far inside 0.5–2
        #expect(report.carriedOver.isEmpty)
    }

    @Test func forceLoadsAFeedACheckFailsAndTheManifestSaysSo() throws {
        let nights = Nights()
        _ = try nights.generate("night0")
        _ = try nights.run("night0", night: 0)
        let truth = try nights.generate("night1", daysLater: 1, wrongData: [.decimalSlip])
        let report = try nights.run("night1", night: 1, force: true)
        let file = try #require(truth.wrongData.keys.first)
        #expect(report.feeds.first { $0.file == file }?.outcome == .loaded)
        #expect(report.checks.first { $0.check == "price_shift" }?.forced == true)
        let manifest = try SnapshotDirectory(path: nights.snapshots).readManifest(try #require(report.publishedVersion))
        #expect(manifest.forced)
        #expect(manifest.forcedGates.contains { $0.hasPrefix("check price_shift:") })
    }
}
