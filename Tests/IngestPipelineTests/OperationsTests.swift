import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// Nightly operations: carry-over, quality gates, diff, forced publishes.
@Suite struct OperationsTests {
    /// `count` pharmacies with `items` offers each, exported `daysAgo` days ago.
    private func writeFeeds(_ temporary: TemporaryDirectory, pharmacies: Range<Int>, items: Int = 10, daysAgo: Double = 1,
                            price: (Int, Int) -> String = { _, item in "\(item + 1),00" }) -> String {
        let feeds = temporary.subdirectory("feeds")
        for pharmacy in pharmacies {
            var feed = RAXFeedBuilder(pharmacyID: "\(1000 + pharmacy)", exportedAt: RAXFeedBuilder.exportTime(daysAgo: daysAgo))
            // Each pharmacy its own stock levels: identical item lines would be one pharmacy's copy of another's.
            for item in 0..<items { feed.item("MM\(item)", name: "TOODE \(item)", price: price(pharmacy, item), quantity: "\(pharmacy + 1)") }
            temporary.write("feeds/rax_\(1000 + pharmacy).txt", bytes: feed.bytes)
        }
        return feeds
    }

    /// `daysLater`: the run's time (`--as-of`) that many days after now.
    private func options(_ temporary: TemporaryDirectory, _ feeds: String, dryRun: Bool = false, force: Bool = false,
                         daysLater: Double = 0, firstNight: Bool = false) -> ImportOptions {
        var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: "\(temporary.path)/snapshots",
                                    mappingsDirectory: RepositoryFiles.mappingsDirectory, dryRun: dryRun, parseThreads: 2,
                                    asOf: Date().addingTimeInterval(daysLater * 86_400))
        options.force = force
        options.firstNight = firstNight
        return options
    }

    private func query(_ temporary: TemporaryDirectory) throws -> SnapshotQuery {
        try SnapshotQuery("\(temporary.path)/snapshots/current")
    }

    @Test func aTruncatedFeedKeepsYesterdaysOffersStaleWhileOthersRefresh() throws {
        let temporary = TemporaryDirectory()
        let feeds = writeFeeds(temporary, pharmacies: 0..<10, daysAgo: 1)
        let first = try ImportRun(options: options(temporary, feeds)).run().publishedVersion!
        let yesterday = try query(temporary).value("SELECT last_refresh FROM pharmacies WHERE id = '1003'")

        // Tonight: new prices everywhere, and pharmacy 1003's download is cut short.
        _ = writeFeeds(temporary, pharmacies: 0..<10, daysAgo: 0, price: { _, item in "\(item + 1),50" })
        var cut = RAXFeedBuilder(pharmacyID: "1003", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 0))
        cut.item("MM0", price: "9,99")
        cut.includeTrailer = false
        temporary.write("feeds/rax_1003.txt", bytes: cut.bytes)

        // The next night (data first loaded by a run of the same date would still count as tonight's).
        let report = try ImportRun(options: options(temporary, feeds, daysLater: 1)).run()
        #expect(report.publishedVersion != nil)
        let db = try query(temporary)
        #expect(db.rows("SELECT stale, last_refresh, item_count FROM pharmacies WHERE id = '1003'").first == ["1", yesterday, "10"])
        #expect(db.int("SELECT price_cents FROM offers WHERE pharmacy_id = '1003' AND aptcode = 'MM0'") == 100)
        #expect(db.int("SELECT price_cents FROM offers WHERE pharmacy_id = '1004' AND aptcode = 'MM0'") == 150)
        #expect(db.int("SELECT count(*) FROM pharmacies WHERE stale = 1") == 1)
        let manifest = try SnapshotDirectory(path: "\(temporary.path)/snapshots").readManifest(report.publishedVersion!)
        #expect(manifest.carriedOver == [.init(kind: "pharmacy", key: "1003", fromVersion: first, lastRefresh: yesterday, dropped: false, offers: 10)])
        #expect(manifest.inputs.first { $0.file == "rax_1003.txt" }?.outcome == "rejected")
        // The input whose data is kept is listed too, as carried over.
        let carried = try #require(manifest.inputs.first { $0.outcome == "carried_over" })
        #expect(carried.pharmacyId == "1003")
        #expect(carried.message?.contains(first) == true)
    }

    /// A `current` that cannot be read is never taken for "no current"
    /// (SNAPSHOT.md, "Across nights and versions"): the run stops with
    /// nothing published; `--first-night` publishes tonight's data, warns,
    /// and says it compared with nothing.
    @Test func anUnreadableCurrentStopsTheRunUnlessFirstNightIsGiven() throws {
        let temporary = TemporaryDirectory()
        let feeds = writeFeeds(temporary, pharmacies: 0..<4, daysAgo: 1)
        let first = try #require(try ImportRun(options: options(temporary, feeds)).run().publishedVersion)
        let directory = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: directory.snapshotPath(first)))
        _ = writeFeeds(temporary, pharmacies: 0..<2, daysAgo: 0)
        for index in 2..<4 { try FileManager.default.removeItem(atPath: "\(feeds)/rax_\(1000 + index).txt") }
        do {
            _ = try ImportRun(options: options(temporary, feeds, daysLater: 1)).run()
            Issue.record("a damaged current was built on")
        } catch ImportError.currentUnreadable(let reason) {
            #expect(reason.hasPrefix("\(first) does not match its manifest: SHA-256 "), "\(reason)")
        }
        #expect(try directory.versions() == [first])
        #expect(directory.currentVersion() == first)

        let report = try ImportRun(options: options(temporary, feeds, daysLater: 1, firstNight: true)).run()
        #expect(report.publishedVersion != nil, "half the pharmacies would fail the gate against a readable current")
        #expect(report.previousVersion == nil)
        #expect(report.warningCounts[.firstNight] == 1)
        #expect(ReportFormatter().format(report).contains("compared against: none: current \(first) was not read (--first-night)"))
        #expect(report.carriedOver.isEmpty)
        #expect(try query(temporary).int("SELECT count(*) FROM pharmacies") == 2)
    }

    @Test func carriedOffersAreDroppedWhenTooOld() throws {
        let temporary = TemporaryDirectory()
        let feeds = writeFeeds(temporary, pharmacies: 0..<20, daysAgo: 1)
        _ = try ImportRun(options: options(temporary, feeds)).run()
        // Eight nights later every pharmacy but 1000 has sent a new export.
        try FileManager.default.removeItem(atPath: "\(feeds)/rax_1000.txt")
        _ = writeFeeds(temporary, pharmacies: 1..<20, daysAgo: -7.5)
        let report = try ImportRun(options: options(temporary, feeds, daysLater: 8)).run()
        #expect(report.carriedOver.first?.dropped == true)
        #expect(report.warnings.contains { $0.code == .staleDropped && $0.key == "1000" })
        #expect(try query(temporary).int("SELECT count(*) FROM pharmacies WHERE id = '1000'") == 0)
    }

    @Test func halfTheFeedsMissingIsStoppedByAGateAndForcePublishesIt() throws {
        let temporary = TemporaryDirectory()
        let feeds = writeFeeds(temporary, pharmacies: 0..<10, daysAgo: 1)
        let first = try ImportRun(options: options(temporary, feeds)).run().publishedVersion
        // Eight nights later only half the pharmacies send: the others' offers are too old to carry.
        for pharmacy in 0..<5 { try FileManager.default.removeItem(atPath: "\(feeds)/rax_\(1000 + pharmacy).txt") }
        _ = writeFeeds(temporary, pharmacies: 5..<10, daysAgo: -7.5)

        let blocked = try ImportRun(options: options(temporary, feeds, daysLater: 8)).run()
        guard case .gates(let failures)? = blocked.blocked else { Issue.record("not blocked: \(String(describing: blocked.blocked))"); return }
        #expect(failures.map(\.gate) == ["offers", "pharmacies"])
        #expect(failures.first?.dropPercent == "50.0")
        #expect(failures.first?.description.contains("100 → 50") == true)
        let directory = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        #expect(directory.currentVersion() == first)
        #expect(try directory.versions().count == 1)

        let forced = try ImportRun(options: options(temporary, feeds, force: true, daysLater: 8)).run()
        let version = try #require(forced.publishedVersion)
        #expect(directory.currentVersion() == version)
        let manifest = try directory.readManifest(version)
        #expect(manifest.forced)
        #expect(manifest.forcedGates.count == 2)
        #expect(try query(temporary).int("SELECT count(*) FROM offers") == 50)
    }

    @Test func anEmptyResultIsNeverPublishedEvenWithForce() throws {
        let temporary = TemporaryDirectory()
        let feeds = writeFeeds(temporary, pharmacies: 0..<2, daysAgo: 1)
        _ = try ImportRun(options: options(temporary, feeds)).run()
        for pharmacy in 0..<2 { try FileManager.default.removeItem(atPath: "\(feeds)/rax_\(1000 + pharmacy).txt") }
        let report = try ImportRun(options: options(temporary, feeds, force: true, daysLater: 8)).run()
        #expect(report.blocked == .noStockFeed("feeds folder \(feeds) is empty"))
        #expect(report.publishedVersion == nil)
        // Feeds that load but hold no offer: the empty result, never published either.
        for pharmacy in 0..<2 {
            temporary.write("feeds/rax_\(1000 + pharmacy).txt", bytes: RAXFeedBuilder(pharmacyID: "\(1000 + pharmacy)", exportedAt: RAXFeedBuilder.exportTime(daysAgo: -8)).bytes)
        }
        let empty = try ImportRun(options: options(temporary, feeds, force: true, daysLater: 8.5)).run()
        #expect(empty.blocked == .emptyResult)
        #expect(empty.publishedVersion == nil)
    }

    @Test func aFeedOverTheRejectRateIsRejectedWholeAndCarriedOver() throws {
        let temporary = TemporaryDirectory()
        let feeds = writeFeeds(temporary, pharmacies: 0..<3, items: 40, daysAgo: 1)
        _ = try ImportRun(options: options(temporary, feeds)).run()
        var noisy = RAXFeedBuilder(pharmacyID: "1001", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 0))
        for item in 0..<40 { noisy.item("MM\(item)", price: item < 3 ? "x" : "1,00") } // 3 of 40 = 7.5 %
        temporary.write("feeds/rax_1001.txt", bytes: noisy.bytes)
        let report = try ImportRun(options: options(temporary, feeds)).run()
        let feed = try #require(report.feeds.first { $0.file == "rax_1001.txt" })
        #expect(feed.outcome == .rejected)
        // The three bad records keep their own reason; the 37 good ones carry the feed's.
        #expect(feed.rejectsByReason == [.badPrice: 3, .rejectRateExceeded: 37])
        #expect(feed.reason == "reject_rate_exceeded")
        #expect(feed.message?.contains("3 of 40 records rejected (7.5 %), over the 5 % allowed") == true)
        #expect(report.rejects.filter { $0.file == "rax_1001.txt" && $0.reason == .badPrice }.map(\.line) == [2, 3, 4])
        #expect(report.rejects.filter { $0.file == "rax_1001.txt" && $0.reason == .badPrice }.allSatisfy { $0.field == "price" })
        // 1001 is rejected; 1000 and 1002 sent last night's files again (duplicates): all three keep their data.
        #expect(report.carriedOver.map(\.key) == ["1000", "1001", "1002"])
    }

    @Test func theDryRunDiffShowsAnExactPriceChange() throws {
        let temporary = TemporaryDirectory()
        let feeds = writeFeeds(temporary, pharmacies: 0..<3, daysAgo: 1)
        _ = try ImportRun(options: options(temporary, feeds)).run()
        _ = writeFeeds(temporary, pharmacies: 0..<3, daysAgo: 0, price: { pharmacy, item in
            pharmacy == 2 && item == 4 ? "12,34" : "\(item + 1),00"
        })
        let report = try ImportRun(options: options(temporary, feeds, dryRun: true)).run()
        let diff = try #require(report.diff)
        #expect(diff.priceChanges == 1)
        let change = try #require(diff.largestPriceChanges.first)
        #expect(diff.largestPriceChanges.count == 1 && change.pharmacyID == "1002" && change.aptcode == "MM4")
        #expect(change.oldCents == 500 && change.newCents == 1234 && change.percent == 146.8)
        #expect(change.itemName != nil && change.pharmacyName != nil)
        // Every change counted by its size: one of +50 % and more.
        #expect(diff.priceChangeHistogram.map(\.count) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
        #expect(diff.priceChangeHistogram.last?.fromPercent == 50 && diff.priceChangeHistogram.last?.toPercent == nil)
        let text = ReportFormatter().format(report)
        #expect(text.contains("1002/MM4: 5.00 → 12.34 (+7.34, +146.8 %)  \(change.itemName!) at \(change.pharmacyName!)"))
        #expect(text.contains("    by size: +50 % to …: 1"))
        // The JSON report carries the same and parses back.
        let document = try JSONSerialization.jsonObject(with: RunReportDocument(report, run: .finished(report)).encoded()) as? [String: Any]
        let changes = (document?["diff"] as? [String: Any])?["largest_price_changes"] as? [[String: Any]]
        #expect(changes?.first?["new_cents"] as? Int == 1234)
        #expect(document?["dry_run"] as? Bool == true)
    }

    @Test func aMissingReimbursementListIsCarriedOver() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        for name in ["reimbursement_2011-05-01.xml", "atc.csv"] {
            try FileManager.default.copyItem(atPath: RepositoryFiles.feed(name), toPath: "\(feeds)/\(name)")
        }
        var feed = RAXFeedBuilder(pharmacyID: "31937", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 1))
        feed.item("MM0007145", package: "1144976", atc: "J01AA02", price: "2,37")
        temporary.write("feeds/rax.txt", bytes: feed.bytes)
        let first = try ImportRun(options: options(temporary, feeds)).run().publishedVersion!
        let before = try query(temporary).rows("SELECT * FROM offers")
        try FileManager.default.removeItem(atPath: "\(feeds)/reimbursement_2011-05-01.xml")
        try FileManager.default.removeItem(atPath: "\(feeds)/atc.csv")
        let report = try ImportRun(options: options(temporary, feeds)).run()
        // The stock feed is the very file loaded last night: skipped as a duplicate, its data kept.
        #expect(Set(report.carriedOver.map(\.key)) == ["reimbursement_list", "atc", "31937"])
        let resent = try #require(report.feeds.first { $0.file == "rax.txt" })
        #expect(resent.outcome == .skipped && resent.reason == "duplicate")
        #expect(report.carriedOver.allSatisfy { $0.fromVersion == first })
        let db = try query(temporary)
        #expect(db.rows("SELECT * FROM offers") == before)
        #expect(db.int("SELECT count(*) FROM reimbursements") == 6)
        #expect(db.int("SELECT count(*) FROM atc") == 19)
        #expect(db.value("SELECT value FROM meta WHERE key = 'reimbursement_valid_from'") == "2011-05-01")
    }

    @Test func aMissingRulesFileFallsBackToTheStatutoryPeriodsWithAWarning() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        try FileManager.default.copyItem(atPath: RepositoryFiles.feed("reimbursement_2011-05-01.xml"), toPath: "\(feeds)/list.xml")
        var feed = RAXFeedBuilder(pharmacyID: "31937", exportedAt: "20110519T2305")
        feed.item("MM0007145", package: "1144976", price: "2,37")
        temporary.write("feeds/rax.txt", bytes: feed.bytes)
        var options = options(temporary, feeds)
        options.mappingsDirectory = temporary.subdirectory("empty-mappings")
        let report = try ImportRun(options: options).run()
        #expect(report.warnings.map(\.code).contains(.defaultPriceRules))
        #expect(try query(temporary).int("SELECT price_100_cents FROM offers") == 175)
    }

    @Test func metricsFileIsAValidTextfileAndKeepsTheLastSuccess() throws {
        let temporary = TemporaryDirectory()
        let path = "\(temporary.path)/ingest.prom"
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var report = RunReport(dryRun: false)
        report.publishedVersion = "v"
        report.rowCounts = ["offers": 5]
        try report.rejects.append(Reject(file: "f", line: 1, key: "k", reason: .badPrice, message: "m"))
        try RunMetrics(startedAt: start, finishedAt: start.addingTimeInterval(2), exitCode: 0, report: report).write(to: path)
        try RunMetrics(startedAt: start.addingTimeInterval(100), finishedAt: start.addingTimeInterval(101), exitCode: 3, report: nil).write(to: path)
        let values = try PrometheusTextfile(contentsOfFile: path)
        #expect(values.types.values.allSatisfy { $0 == "gauge" })
        #expect(values["ingest_last_success_timestamp_seconds"] == 1_800_000_002)
        #expect(values["ingest_last_run_timestamp_seconds"] == 1_800_000_101)
        #expect(values["ingest_last_run_success"] == 0)
        #expect(values["ingest_last_run_exit_code"] == 3)
        // No series comes and goes (issue 44): a run without a report keeps the row counts current still holds, and its rejects are 0.
        #expect(values["ingest_rows{table=\"offers\"}"] == 5)
        #expect(values["ingest_rejects{reason=\"bad_price\"}"] == 0)
        #expect(values["ingest_feeds{outcome=\"loaded\"}"] == 0)
        let first = try PrometheusTextfile(RunMetrics(startedAt: start, finishedAt: start.addingTimeInterval(1.2345), exitCode: 0, report: report).text(previous: nil))
        #expect(first["ingest_rejects{reason=\"bad_price\"}"] == 1)
        #expect(first["ingest_rows{table=\"offers\"}"] == 5)
        #expect(first["ingest_run_duration_seconds"] == 1.235)
        #expect(first["ingest_last_success_timestamp_seconds"] == 1_800_000_001, "a publish is a success at its end")
        #expect(first.samples.keys.filter { $0.hasPrefix("ingest_feeds{") }.count == FeedOutcome.allCases.count, "every outcome")
        #expect(first["ingest_feeds{outcome=\"unrecognised\"}"] == 0)
        #expect(first["ingest_quality_gate_failed{gate=\"pharmacies_rise\"}"] == 0)

        // A dry run is no failure and moves no success time; with --detailed-exitcode, 2 is a dry run's success too.
        var dry = RunReport(dryRun: true)
        dry.rowCounts = ["offers": 5]
        for code: Int32 in [0, 2] {
            let text = RunMetrics(startedAt: start.addingTimeInterval(200), finishedAt: start.addingTimeInterval(201), exitCode: code, report: dry)
                .text(previous: try String(contentsOfFile: path, encoding: .utf8))
            let values = try PrometheusTextfile(text)
            #expect(values["ingest_last_run_success"] == 1 && values["ingest_last_run_dry_run"] == 1)
            #expect(values["ingest_last_success_timestamp_seconds"] == 1_800_000_002)
        }
    }
}
