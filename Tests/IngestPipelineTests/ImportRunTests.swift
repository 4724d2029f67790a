import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

@Suite struct ImportRunTests {
    /// A feeds folder holding copies of the repository's sample feeds.
    private func sampleFeeds(in temporary: TemporaryDirectory, only names: [String]? = nil) throws -> String {
        let feeds = temporary.subdirectory("feeds")
        for name in try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.feedsDirectory)
        where names?.contains(name) ?? true {
            try FileManager.default.copyItem(atPath: RepositoryFiles.feed(name), toPath: "\(feeds)/\(name)")
        }
        return feeds
    }

    /// `daysLater`: the run's time that many days from now (a later night).
    private func options(_ temporary: TemporaryDirectory, feeds: String, dryRun: Bool = false, daysLater: Double = 0) -> ImportOptions {
        ImportOptions(feedsDirectory: feeds, snapshotsDirectory: "\(temporary.path)/snapshots",
                      mappingsDirectory: RepositoryFiles.mappingsDirectory, dryRun: dryRun, parseThreads: 2,
                      asOf: Date().addingTimeInterval(daysLater * 86_400))
    }

    /// SELMA APTEEK's (31937) export of the next day in place of its sample:
    /// what makes a later night fresh (a night with none publishes nothing).
    private func sendTonightsExport(_ temporary: TemporaryDirectory) throws {
        let old = "\(temporary.path)/feeds/rax_31937_201105192305.txt"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: old))
        try FileManager.default.removeItem(atPath: old)
        bytes.replaceSubrange(try #require(bytes.range(of: Data(";20110519T2305;".utf8))), with: Data(";20110520T2305;".utf8))
        try bytes.write(to: URL(fileURLWithPath: "\(temporary.path)/feeds/rax_31937_201105202305.txt"))
    }

    @Test func sampleFeedsLoadWithExactCents() throws {
        let temporary = TemporaryDirectory()
        let report = try ImportRun(options: options(temporary, feeds: try sampleFeeds(in: temporary))).run()
        let version = try #require(report.publishedVersion)
        let directory = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        #expect(directory.currentVersion() == version)

        let query = try SnapshotQuery(directory.currentPath)
        func price(_ pharmacy: String, _ aptcode: String) -> Int? {
            query.int("SELECT price_cents FROM offers WHERE pharmacy_id = '\(pharmacy)' AND aptcode = '\(aptcode)'")
        }
        #expect(price("5060", "MM0034371") == 830)    // 129,9 EEK
        #expect(price("5060", "MM0100055") == 1000)   // 156,46 EEK
        #expect(price("31937", "MM0007145") == 237)   // 2,37 EUR
        #expect(query.value("SELECT name FROM items WHERE aptcode = 'MM0200001'") == "ŠAMPOON ÕRN 200ML")
        #expect(query.rows("SELECT latitude, longitude, last_refresh, region, item_count, stale FROM pharmacies WHERE id = '5060'").first
                == ["59.4380086", "24.871333", "2010-12-30T23:05:00+02:00", "TALLINN", "4", "0"])
        #expect(query.value("SELECT last_refresh FROM pharmacies WHERE id = '31937'") == "2011-05-19T23:05:00+03:00")
        #expect(query.value("SELECT value FROM meta WHERE key = 'snapshot_version'") == version)
        for key in ["schema_version", "created_at", "importer_version"] {
            #expect(query.value("SELECT value FROM meta WHERE key = '\(key)'") != nil)
        }
    }

    /// The check scans `offers` while the indexes build, with the query it
    /// would run on the finished file: the two must be the same text, or the
    /// check scans the table again afterwards. Every content digest in the
    /// manifest is the published file's.
    @Test func theOffersScannedDuringTheIndexBuildAreThePublishedOnes() throws {
        let temporary = TemporaryDirectory()
        let report = try ImportRun(options: options(temporary, feeds: try sampleFeeds(in: temporary))).run()
        let version = try #require(report.publishedVersion)
        let directory = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        let database = try SQLiteDatabase(path: directory.snapshotPath(version), readOnly: true)
        let onFile = try #require(try PublishCheck.tableScanSQL(of: "offers", in: database, writerDigest: true))
        #expect(onFile == (try PublishCheck.tableScanSQL(of: "offers", schema: BuiltInFormats.schema, writerDigest: true)))
        #expect(onFile.contains("offers_by_item") == false && onFile.hasSuffix("FROM \"offers\" NOT INDEXED"))
        #expect(try directory.readManifest(version).contentDigests == (try PublishCheck.contentDigests(in: database)))
        try database.close()
    }

    @Test func manifestListsEveryInputWithDigestAndOutcome() throws {
        let temporary = TemporaryDirectory()
        let feeds = try sampleFeeds(in: temporary)
        temporary.write("feeds/notes.txt", text: "not a feed\n")
        let report = try ImportRun(options: options(temporary, feeds: feeds)).run()
        let directory = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        let manifest = try directory.readManifest(try #require(report.publishedVersion))
        let names = try FileManager.default.contentsOfDirectory(atPath: feeds).sorted()
        #expect(manifest.inputs.map(\.file).sorted() == names)
        for input in manifest.inputs {
            #expect(input.sha256 == (try FileDigest.sha256(path: "\(feeds)/\(input.file)")))
            #expect(input.read == input.accepted + input.rejected)
        }
        #expect(manifest.inputs.first { $0.file == "notes.txt" }?.outcome == "unrecognised")
        #expect(manifest.inputs.first { $0.file == "rax_5060_201012302305.txt" }?.outcome == "loaded")
        #expect(manifest.rowCounts["offers"] == 13)
        #expect(manifest.snapshot.sha256 == (try FileDigest.sha256(path: directory.snapshotPath(manifest.version))))
    }

    @Test func twoRunsPublishTwoVersions() throws {
        let temporary = TemporaryDirectory()
        let feeds = try sampleFeeds(in: temporary)
        let first = try #require(try ImportRun(options: options(temporary, feeds: feeds)).run().publishedVersion)
        // The next night one pharmacy sends a newer export; the others are carried over.
        try sendTonightsExport(temporary)
        let second = try #require(try ImportRun(options: options(temporary, feeds: feeds, daysLater: 1)).run().publishedVersion)
        let directory = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        #expect(first < second)
        #expect(try directory.versions() == [first, second])
        #expect(directory.currentVersion() == second)
    }

    /// Issue 44: a night whose feeds did not come (every file left from an
    /// earlier night) publishes nothing, whatever `current` holds, and says why.
    @Test func aNightWithOnlyEarlierNightsFilesPublishesNothing() throws {
        let temporary = TemporaryDirectory()
        let feeds = try sampleFeeds(in: temporary, only: ["pharmacies.csv", "rax_5060_201012302305.txt"])
        let first = try #require(try ImportRun(options: options(temporary, feeds: feeds)).run().publishedVersion)
        let report = try ImportRun(options: options(temporary, feeds: feeds, daysLater: 1)).run()
        #expect(report.blocked == .noStockFeed("feeds folder \(feeds) holds 2 files, none a stock feed loaded tonight: 1 loaded (not stock), 1 skipped"))
        #expect(report.publishedVersion == nil)
        #expect(SnapshotDirectory(path: "\(temporary.path)/snapshots").currentVersion() == first)
        // --force does not publish yesterday as tonight's either.
        var forced = options(temporary, feeds: feeds, daysLater: 1)
        forced.force = true
        #expect(try ImportRun(options: forced).run().publishedVersion == nil)
    }

    /// Issue 44: most feeds missing is the fresh-share gate (exit 3), which --force passes.
    @Test func aNightWhereMostFeedsDidNotComeFailsTheFreshShareGate() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        let ids = (1...8).map { "300\($0)" }
        for id in ids {
            var feed = RAXFeedBuilder(pharmacyID: id, exportedAt: "20261120T2305")
            feed.item("MM1", name: "TOODE", price: "1,00", quantity: "1")
            temporary.write("feeds/rax_\(id).txt", bytes: feed.bytes)
        }
        func night(_ day: Int, force: Bool = false) throws -> RunReport {
            var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: "\(temporary.path)/snapshots",
                                        mappingsDirectory: RepositoryFiles.mappingsDirectory, parseThreads: 2,
                                        asOf: Date(timeIntervalSince1970: TimeInterval(try #require(ExportTimestamp.parseISO8601("2026-11-\(day)T06:00:00+02:00")).epochSeconds)))
            options.force = force
            return try ImportRun(options: options).run()
        }
        #expect(try night(21).publishedVersion != nil)
        func send(_ count: Int, on day: Int) {
            for id in ids.prefix(count) {
                var feed = RAXFeedBuilder(pharmacyID: id, exportedAt: "202611\(day - 1)T2305")
                feed.item("MM1", name: "TOODE", price: "1,00", quantity: "2")
                temporary.write("feeds/rax_\(id).txt", bytes: feed.bytes)
            }
        }
        // Two of eight: six missing is more than the floor of five.
        send(2, on: 22)
        let report = try night(22)
        let share = try #require(report.gates.first { $0.gate == "fresh_share" })
        #expect("\(share.gate) \(share.current)→\(share.new) \(share.dropPercent) \(share.limitPercent) \(share.passed)" == "fresh_share 8→2 25.0 50 false")
        #expect(report.blocked == .gates([share.failure]))
        #expect(share.failure.description == "gate fresh_share: 2 of current's 8 pharmacies sent a feed that loaded tonight, 25.0 % (at least 50 % needed, --min-fresh-share)")
        #expect(try night(22, force: true).publishedVersion != nil)
        // Three of eight the next night: five missing is within the floor.
        send(3, on: 23)
        let floor = try night(23)
        #expect(floor.gates.first { $0.gate == "fresh_share" }?.passed == true)
        #expect(floor.publishedVersion != nil)
    }

    @Test func dryRunWritesNothingToTheSnapshotsDirectory() throws {
        let temporary = TemporaryDirectory()
        let feeds = try sampleFeeds(in: temporary)
        let report = try ImportRun(options: options(temporary, feeds: feeds, dryRun: true)).run()
        #expect(report.publishedVersion == nil)
        #expect(!FileManager.default.fileExists(atPath: "\(temporary.path)/snapshots"))
        #expect(report.rowCounts["offers"] == 13)
        let text = ReportFormatter().format(report)
        #expect(text.contains("dry run"))
        #expect(text.contains("would publish: pharmacies 4, items 8, offers 13"))
    }

    @Test func aBadFeedIsRejectedWholeWhileTheOthersLoad() throws {
        let temporary = TemporaryDirectory()
        let feeds = try sampleFeeds(in: temporary, only: ["pharmacies.csv", "rax_5060_201012302305.txt"])
        var truncated = RAXFeedBuilder(version: "3.1", pharmacyID: "31937", exportedAt: "20110519T2305")
        truncated.item("A1")
        truncated.item("A2", price: "1.000,00")
        truncated.includeTrailer = false
        temporary.write("feeds/rax_31937.txt", bytes: truncated.bytes)

        let report = try ImportRun(options: options(temporary, feeds: feeds, dryRun: true)).run()
        let bad = try #require(report.feeds.first { $0.file == "rax_31937.txt" })
        #expect(bad.outcome == .rejected)
        // The bad price keeps its own reason; the good record carries the feed's.
        #expect(bad.read == 2 && bad.accepted == 0 && bad.rejectsByReason == [.trailerMismatch: 1, .badPrice: 1])
        #expect(report.feeds.first { $0.file == "rax_5060_201012302305.txt" }?.outcome == .loaded)
        #expect(report.rowCounts["offers"] == 4)
        #expect(report.rejects.filter { $0.file == "rax_31937.txt" }.map(\.line) == [2, 3])
        let text = ReportFormatter().format(report)
        #expect(text.contains("trailer_mismatch 1"))
    }

    @Test func newestExportOfAPharmacyWinsAndARejectedOneFallsBack() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        var old = RAXFeedBuilder(exportedAt: "20101229T2305")
        old.item("OLD", price: "1,00")
        var new = RAXFeedBuilder(exportedAt: "20101230T2305")
        new.item("NEW", price: "2,00")
        var broken = RAXFeedBuilder(exportedAt: "20101231T2305")
        broken.item("BROKEN")
        broken.trailer = "T;9;9"
        // File names deliberately sort against export time.
        temporary.write("feeds/c_old.txt", bytes: old.bytes)
        temporary.write("feeds/b_new.txt", bytes: new.bytes)
        temporary.write("feeds/a_broken.txt", bytes: broken.bytes)
        let report = try ImportRun(options: options(temporary, feeds: feeds, dryRun: true)).run()
        let outcomes = Dictionary(uniqueKeysWithValues: report.feeds.map { ($0.file, $0.outcome) })
        #expect(outcomes == ["a_broken.txt": .rejected, "b_new.txt": .loaded, "c_old.txt": .superseded])
        #expect(report.rowCounts["offers"] == 1)
    }

    @Test func aPharmacyMissingFromTheRegistryLoadsWithRegionUnknown() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        var feed = RAXFeedBuilder(pharmacyID: "999", pharmacyName: "UUS APTEEK")
        feed.item("A1")
        temporary.write("feeds/rax_999.txt", bytes: feed.bytes)
        let report = try ImportRun(options: options(temporary, feeds: feeds)).run()
        let query = try SnapshotQuery(SnapshotDirectory(path: "\(temporary.path)/snapshots").currentPath)
        #expect(query.rows("SELECT name, region FROM pharmacies").first == ["UUS APTEEK", "UNKNOWN"])
        // No list in this folder: the night says so once.
        #expect(report.warnings.map(\.code) == [.noReimbursementList, .unknownPharmacy])
    }

    @Test func nothingLoadedIsNeverPublished() throws {
        let temporary = TemporaryDirectory()
        let feeds = try sampleFeeds(in: temporary, only: ["pharmacies.csv"])
        let report = try ImportRun(options: options(temporary, feeds: feeds)).run()
        #expect(report.blocked == .noStockFeed("feeds folder \(feeds) holds 1 file, none a stock feed loaded tonight: 1 loaded (not stock)"))
        #expect(report.publishedVersion == nil)
        let directory = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        #expect(try directory.versions().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".lock") }.isEmpty)
    }

    @Test func aFailureInjectedBeforeTheSwitchKeepsCurrent() throws {
        struct Injected: Error {}
        let temporary = TemporaryDirectory()
        let feeds = try sampleFeeds(in: temporary)
        let first = try ImportRun(options: options(temporary, feeds: feeds)).run().publishedVersion
        try sendTonightsExport(temporary)
        let run = ImportRun(options: options(temporary, feeds: feeds, daysLater: 1))
        run.faultInjector = { if $0 == .beforeSwitch { throw Injected() } }
        #expect(throws: Injected.self) { try run.run() }
        let directory = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        #expect(directory.currentVersion() == first)
        #expect(try directory.versions() == [first!])
    }

    @Test func symbolicLinksInTheFeedsFolderAreNotFollowed() throws {
        let temporary = TemporaryDirectory()
        let feeds = try sampleFeeds(in: temporary, only: ["rax_5060_201012302305.txt"])
        var outside = RAXFeedBuilder(pharmacyID: "666")
        outside.item("SECRET")
        let target = temporary.write("outside/rax.txt", bytes: outside.bytes)
        try FileManager.default.createSymbolicLink(atPath: "\(feeds)/link.txt", withDestinationPath: target)
        let report = try ImportRun(options: options(temporary, feeds: feeds, dryRun: true)).run()
        #expect(report.feeds.first { $0.file == "link.txt" }?.outcome == .skipped)
        #expect(report.rowCounts["pharmacies"] == 1)
    }

    @Test func allSampleFormatsLoadTogether() throws {
        let temporary = TemporaryDirectory()
        let report = try ImportRun(options: options(temporary, feeds: try sampleFeeds(in: temporary), dryRun: false)).run()
        let query = try SnapshotQuery(SnapshotDirectory(path: "\(temporary.path)/snapshots").currentPath)
        func price(_ pharmacy: String, _ aptcode: String) -> Int? {
            query.int("SELECT price_cents FROM offers WHERE pharmacy_id = '\(pharmacy)' AND aptcode = '\(aptcode)'")
        }
        #expect(price("5061", "MM0034978") == 371)    // Noom 3.40 net at 9 %
        #expect(price("5061", "MM0100055") == 1008)   // Noom 8.26 net at 22 %
        #expect(price("7001", "LV100231") == 139)     // zales24 0,98 LVL
        #expect(query.value("SELECT name FROM items WHERE aptcode = 'LV100977'") == "IBUPROFEN 200MG TBL N20; forte")
        #expect(query.value("SELECT name FROM items WHERE aptcode = 'LV200011'") == "ZIEDE \"Bērnu\" 50G")
        #expect(query.value("SELECT region FROM pharmacies WHERE id = '7001'") == "RĪGA")
        #expect(report.feeds.first { $0.file == "noom_5061_20240519.xml" }?.adapter == "noom")
        #expect(report.feeds.first { $0.file == "zales24_export_2013-06-01.csv" }?.adapter == "mapping:zales24")
    }

    @Test func aMalformedNoomFeedLeavesTheOtherFeedsLoaded() throws {
        let temporary = TemporaryDirectory()
        let feeds = try sampleFeeds(in: temporary, only: ["pharmacies.csv", "rax_5060_201012302305.txt", "noom_5061_20240519.xml"])
        let noom = try String(contentsOfFile: "\(feeds)/noom_5061_20240519.xml", encoding: .utf8)
        try noom.replacingOccurrences(of: "</name>", with: "</nam>").write(toFile: "\(feeds)/noom_5061_20240519.xml", atomically: true, encoding: .utf8)
        let report = try ImportRun(options: options(temporary, feeds: feeds, dryRun: true)).run()
        let bad = try #require(report.feeds.first { $0.file == "noom_5061_20240519.xml" })
        #expect(bad.outcome == .rejected)
        #expect(bad.message?.contains("malformed_xml at line") == true)
        #expect(report.feeds.first { $0.file == "rax_5060_201012302305.txt" }?.outcome == .loaded)
        #expect(report.rowCounts["offers"] == 4)
    }

    @Test func anInvalidMappingStopsTheRunBeforeAnyFeedIsRead() throws {
        let temporary = TemporaryDirectory()
        let feeds = try sampleFeeds(in: temporary)
        temporary.write("mappings/bad.mapping.toml", text: "[columns]\ncolour = \"x\"\n")
        var options = options(temporary, feeds: feeds)
        options.mappingsDirectory = "\(temporary.path)/mappings"
        #expect {
            try ImportRun(options: options).run()
        } throws: { error in
            "\(error)".contains("bad.mapping.toml") && "\(error)".contains("columns.colour")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(temporary.path)/snapshots"))
    }

    /// An unmounted feeds folder is a night whose feeds did not come (issue 44): reported, never published.
    @Test func missingFeedsFolderPublishesNothingAndSaysSo() throws {
        let temporary = TemporaryDirectory()
        let report = try ImportRun(options: options(temporary, feeds: "\(temporary.path)/nope")).run()
        #expect(report.blocked == .noStockFeed("feeds folder \(temporary.path)/nope does not exist or is not a directory (is it mounted?)"))
        #expect(report.publishedVersion == nil)
        #expect(try SnapshotDirectory(path: "\(temporary.path)/snapshots").versions().isEmpty)
    }
}
