import Foundation
import IngestAdapters
import IngestCore
import IngestGenerator
import IngestReadAPI
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// SNAPSHOT.md "Across nights and versions": what goes wrong only on a
/// night that follows another. Each test is a scenario of issue 32 that
/// published wrong data with exit 0 before.
@Suite struct AcrossNightsTests {
    /// A snapshots folder and the runs on it, each at a Tallinn time given in ISO 8601.
    final class History {
        let temporary = TemporaryDirectory()
        var snapshots: String { "\(temporary.path)/snapshots" }
        var directory: SnapshotDirectory { SnapshotDirectory(path: snapshots) }

        func run(_ feeds: String, mappings: String = RepositoryFiles.mappingsDirectory, asOf: String, firstNight: Bool = false,
                 references: [any ReferenceSet.Type] = BuiltInFormats.references) throws -> RunReport {
            let time = try #require(ExportTimestamp.parseISO8601(asOf))
            var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots, mappingsDirectory: mappings, parseThreads: 2,
                                        asOf: Date(timeIntervalSince1970: TimeInterval(time.epochSeconds)))
            options.firstNight = firstNight
            return try ImportRun(options: options, references: references).run()
        }

        func current() throws -> SnapshotQuery { try SnapshotQuery(directory.currentPath) }

        /// SELMA APTEEK's (31937) export of a later day (`exported`, compact
        /// RAX time) in place of its earlier one: what makes a later night
        /// fresh (a night with none publishes nothing).
        func sendNextDaysExport(_ feeds: String, exported: String = "20110520T2305") throws {
            for file in try FileManager.default.contentsOfDirectory(atPath: feeds) where file.hasPrefix("rax_31937_") {
                try FileManager.default.removeItem(atPath: "\(feeds)/\(file)")
            }
            var bytes = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.feed("rax_31937_201105192305.txt")))
            // Windows-1257: the date is ASCII, the rest stays byte for byte.
            bytes.replaceSubrange(try #require(bytes.range(of: Data(";20110519T2305;".utf8))), with: Data(";\(exported);".utf8))
            try bytes.write(to: URL(fileURLWithPath: "\(feeds)/rax_31937_\(exported.replacingOccurrences(of: "T", with: "")).txt"))
        }

        /// The repository's sample feeds (FEEDS.md's examples) in a folder of their own.
        func sampleFeeds(_ name: String) throws -> String {
            let feeds = temporary.subdirectory(name)
            for file in try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.feedsDirectory) {
                try FileManager.default.copyItem(atPath: RepositoryFiles.feed(file), toPath: "\(feeds)/\(file)")
            }
            return feeds
        }
    }

    /// Issue 32's first scenario: 5060 (RAX 3.2, with package codes) and
    /// 31937 (RAX 3.1, without) both sell MM0007145; the next night only
    /// 31937 sends. 31937 sorts first, so its description without a package
    /// code came first and 5060's carried offer lost its tier prices.
    @Test func aCarriedPharmacyKeepsItsTierPricesAndItsItemsKeepTheirFields() throws {
        let history = History()
        let feeds = try history.sampleFeeds("feeds")
        #expect(try history.run(feeds, asOf: "2024-05-20T06:00:00+03:00").publishedVersion != nil)
        let yesterday = try history.current()
        let offer = "SELECT price_cents, quantity, limit_price_cents, price_50_cents, price_75_cents, price_90_cents, price_100_cents FROM offers WHERE pharmacy_id = '5060' AND aptcode = 'MM0007145'"
        let item = "SELECT aptcode, package_code, gtin, name, producer, atc, active_substance, info_url, image_url FROM items ORDER BY aptcode"
        // 2,37 € on the shelf, limit 1,89 €, the 50 % tier priced (the thesis's item-details example).
        #expect(yesterday.rows(offer).first?.prefix(4) == ["237", "14", "189", "237"], "night 1: \(yesterday.rows(offer))")
        #expect(yesterday.rows(offer).first?[6] != nil)
        let offersBefore = yesterday.rows(offer)
        let itemsBefore = yesterday.rows(item)

        // The next night only 31937 sends, a day newer; 5060 is carried over.
        try history.sendNextDaysExport(feeds)
        try FileManager.default.removeItem(atPath: "\(feeds)/rax_5060_201012302305.txt")
        let report = try history.run(feeds, asOf: "2024-05-21T06:00:00+03:00")
        #expect(report.publishedVersion != nil)
        #expect(report.carriedOver.contains { $0.key == "5060" && !$0.dropped })
        #expect(report.feeds.first { $0.file == "rax_31937_201105202305.txt" }?.outcome == .loaded)
        let tonight = try history.current()
        #expect(tonight.rows(offer) == offersBefore)
        #expect(tonight.rows(item) == itemsBefore)
        #expect(tonight.value("SELECT package_code FROM items WHERE aptcode = 'MM0007145'") == "1144976")
        #expect(tonight.value("SELECT info_url FROM items WHERE aptcode = 'MM0007145'") != nil)
        #expect(report.diff?.limitPriceChanges == 0)
    }

    /// A generated world of 14 pharmacies; night `n` runs the morning after its exports.
    final class GeneratedNights {
        let history = History()

        func generate(_ name: String, daysLater: Int = 0, wrongData: [WrongDataFault] = []) throws -> GroundTruth {
            var options = FeedGenerator.Options(pharmacies: 14, items: 80, seed: 3, formats: [.rax, .noom],
                                                rulesSource: "\(RepositoryFiles.mappingsDirectory)/patient_price_rules.toml")
            options.daysLater = daysLater
            options.priceChangeRate = daysLater > 0 ? 0.05 : 0
            options.wrongData = wrongData
            return try FeedGenerator(options: options).generate(into: "\(history.temporary.path)/\(name)")
        }

        /// `hour` in Tallinn on 2025-11-21 + `night`.
        func run(_ name: String, night: Int, hour: Int = 6) throws -> RunReport {
            let root = "\(history.temporary.path)/\(name)"
            return try history.run("\(root)/feeds", mappings: "\(root)/mappings",
                                   asOf: String(format: "2025-11-%02dT%02d:00:00+02:00", 21 + night, hour))
        }
    }

    /// Issue 32's second scenario: a copied branch is caught on night 2;
    /// the cron job runs night 2 again. The original's file is now skipped
    /// as unchanged, and the copy was compared with nothing and loaded.
    @Test func reRunningANightCatchesTheCopyAgainAndPublishesNothingNew() throws {
        let nights = GeneratedNights()
        _ = try nights.generate("night0")
        #expect(try nights.run("night0", night: 0).publishedVersion != nil)
        let truth = try nights.generate("night1", daysLater: 1, wrongData: [.duplicateBranch])
        let copy = try #require(truth.wrongData.first { $0.value == WrongDataFault.duplicateBranch.rawValue }?.key)
        let first = try nights.run("night1", night: 1)
        let version = try #require(first.publishedVersion)
        #expect(first.feeds.first { $0.file == copy }?.reason == RejectReason.duplicateStock.rawValue)
        let staleAfterFirst = try nights.history.current().int("SELECT count(*) FROM pharmacies WHERE stale = 1")

        let again = try nights.run("night1", night: 1, hour: 9)
        #expect(again.feeds.first { $0.file == copy }?.outcome == .rejected)
        #expect(again.feeds.first { $0.file == copy }?.reason == RejectReason.duplicateStock.rawValue)
        #expect(again.rejectCounts[.duplicateStock] == first.rejectCounts[.duplicateStock])
        #expect(again.nothingNew)
        #expect(again.publishedVersion == nil)
        #expect(nights.history.directory.currentVersion() == version)
        #expect(try nights.history.directory.versions().count == 2)
        #expect(try nights.history.current().int("SELECT count(*) FROM pharmacies WHERE stale = 1") == staleAfterFirst)
        let text = ReportFormatter().format(again)
        #expect(text.contains("NOTHING NEW TO PUBLISH (current \(version) holds the same data)"))
        #expect(text.contains("nothing new to publish: current \(version) holds the same data and stays"))
        // The pharmacies loaded by the first run of the night stay fresh: 13 of 14, the copy's carried stale.
        #expect(ReportFormatter().verdict(again).hasPrefix("NOTHING NEW TO PUBLISH (current \(version) holds the same data): 14 pharmacies (13 fresh, 1 stale), "),
                "\(ReportFormatter().verdict(again))")
        #expect(ReportFormatter().verdict(first).hasPrefix("PUBLISHED \(version): 14 pharmacies (13 fresh, 1 stale), "))
    }

    /// Makes a published version look as an older schema wrote it: the GS1
    /// tables gone (a kind added later) and `price_history` (schema 4's),
    /// `user_version` 2, its manifest's SHA-256 and size matching the changed
    /// file (so it is a good `current`, only older).
    static func downgrade(_ version: String, in directory: SnapshotDirectory) throws {
        let path = directory.snapshotPath(version)
        let database = try SQLiteDatabase(path: path)
        try database.execute("""
            DROP TABLE gs1_children; DROP TABLE gs1_items; DROP VIEW prices_over_time; DROP TABLE price_history;
            ALTER TABLE offers DROP COLUMN price_since;
            PRAGMA user_version = 2; UPDATE meta SET value = '2' WHERE key = 'schema_version'
            """)
        try database.close()
        var manifest = try directory.readManifest(version)
        manifest.snapshot.sha256 = try FileDigest.sha256(path: path)
        manifest.snapshot.size = Int64(try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int))
        try manifest.encoded().write(to: URL(fileURLWithPath: directory.manifestPath(version)))
    }

    /// An upgrade: `current` was written by the previous schema, which had no
    /// GS1 tables; tonight brings no GS1 file. The night publishes (the
    /// kind starts empty, with a warning); a changeset across the two
    /// schemas is refused by the CLI (65) and by the read API (410).
    @Test func theFirstNightAfterAnUpgradeStartsNewTablesEmptyAndRefusesChangesetsAcrossIt() async throws {
        let history = History()
        let feeds = try history.sampleFeeds("feeds")
        let old = try #require(try history.run(feeds, asOf: "2024-05-20T06:00:00+03:00").publishedVersion)
        try Self.downgrade(old, in: history.directory)
        #expect(PublishedVersionCheck.problem(with: old, in: history.directory) == nil)
        try FileManager.default.removeItem(atPath: "\(feeds)/gs1_datasheet_2015.xml")
        try history.sendNextDaysExport(feeds)

        let report = "\(history.temporary.path)/night2.json"
        let night = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", history.snapshots, "--mappings", RepositoryFiles.mappingsDirectory,
                                              "--as-of", "2024-05-21T06:00:00+03:00", "--report", report])
        #expect(night.status == 0, "\(night.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        #expect((document["warning_counts"] as? [String: Int])?["table_not_in_current"] == 1)
        let new = try #require(document["published_version"] as? String)
        let tonight = try history.current()
        #expect(tonight.int("SELECT count(*) FROM gs1_items") == 0)
        #expect(tonight.int("PRAGMA user_version") == Int(SnapshotSchema.version))
        #expect(tonight.int("SELECT count(*) FROM offers") == 13)

        let out = "\(history.temporary.path)/changeset.bin"
        let changeset = try CommandRunner.ingest(["snapshots", "changeset", old, new, "--out", out, "--snapshots", history.snapshots])
        #expect(changeset.status == 65)
        #expect(changeset.stdout == "")
        #expect(changeset.stderr == "ingest: no changeset from \(old) to \(new): the snapshots have schema versions 2 and \(SnapshotSchema.version): no changeset turns one into the other; a client on the older one downloads the whole snapshot\n")
        #expect(!FileManager.default.fileExists(atPath: out))

        let served = try OpenSnapshot(path: history.directory.snapshotPath(new), version: new)
        guard case .gone(let reason) = try await ChangesetCache(directory: history.directory, work: InlineWork()).answer(since: old, current: served) else {
            Issue.record("a changeset across schemas was served")
            return
        }
        // The night across the upgrade wrote no changeset: no chain leads from the older schema.
        #expect(reason == "no nightly changesets lead from version \(old) to \(new) (a night between them started a new history or a new schema): download the whole snapshot")
        #expect(try history.directory.readManifest(new).changeset == nil)
        #expect(!FileManager.default.fileExists(atPath: history.directory.changesetPath(new)))
    }

    /// Every ordinary table of a snapshot has a primary key (a changeset
    /// carries only keyed tables, and a client syncs by key); the list is
    /// written out, so a new table is seen here.
    @Test func everyTableHasAPrimaryKey() throws {
        let history = History()
        _ = try history.run(try history.sampleFeeds("feeds"), asOf: "2024-05-20T06:00:00+03:00")
        let keys = try history.current().rows("""
            SELECT t.name, group_concat(c.name, ',') FROM pragma_table_list AS t
            LEFT JOIN pragma_table_info(t.name) AS c ON c.pk > 0
            WHERE t.schema = 'main' AND t.type = 'table' AND t.name NOT LIKE 'sqlite_%' GROUP BY t.name ORDER BY t.name
            """)
        #expect(keys == [
            ["atc", "code"], ["diagnosis_legend", "code"], ["gs1_children", "parent_gtin,position"], ["gs1_descriptions", "gtin,lang"], ["gs1_inspections", "gtin,attribute"], ["gs1_items", "gtin"],
            ["icd10", "code"], ["items", "aptcode"], ["loaded_exports", "pharmacy_id,sha256"], ["medicine_register", "package_code"], ["meta", "key"],
            ["offers", "pharmacy_id,aptcode"], ["pharmacies", "id"], ["pharmacy_hours", "pharmacy_id,weekday,opens"], ["price_history", "pharmacy_id,aptcode,since"], ["reimbursement_diagnoses", "package_code,rate,position"],
            ["reimbursements", "package_code,rate"],
        ].map { $0.map(Optional.some) })
    }

    /// A `current` that cannot be trusted, whatever the damage, stops the
    /// night with exit 70 and nothing published; a night that took it for
    /// "no current" published one pharmacy where carry-over keeps two.
    @Test(arguments: ["a regular file", "a link to nothing", "a file that fails quick_check"])
    func aDamagedCurrentStopsTheNight(_ damage: String) throws {
        let history = History()
        let feeds = try history.sampleFeeds("feeds")
        let version = try #require(try history.run(feeds, asOf: "2024-05-20T06:00:00+03:00").publishedVersion)
        let directory = history.directory
        switch damage {
        case "a regular file":
            try FileManager.default.removeItem(atPath: directory.currentPath)
            try FileManager.default.copyItem(atPath: directory.snapshotPath(version), toPath: directory.currentPath)
        case "a link to nothing":
            try FileManager.default.removeItem(atPath: directory.currentPath)
            try FileManager.default.createSymbolicLink(atPath: directory.currentPath, withDestinationPath: "20990101T000000Z-001.sqlite")
        default:
            // A b-tree page overwritten, the manifest told the new SHA-256: only quick_check sees it.
            let path = directory.snapshotPath(version)
            let handle = try #require(FileHandle(forUpdatingAtPath: path))
            try handle.seek(toOffset: 4096 * 3 + 8)
            handle.write(Data(repeating: 0xFF, count: 64))
            try handle.close()
            var manifest = try directory.readManifest(version)
            manifest.snapshot.sha256 = try FileDigest.sha256(path: path)
            try manifest.encoded().write(to: URL(fileURLWithPath: directory.manifestPath(version)))
        }
        try FileManager.default.removeItem(atPath: "\(feeds)/rax_5060_201012302305.txt")
        let night = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", history.snapshots, "--mappings", RepositoryFiles.mappingsDirectory,
                                              "--as-of", "2024-05-21T06:00:00+03:00"])
        #expect(night.status == 70)
        #expect(night.stdout == "")
        let reason = switch damage {
        case "a regular file": "\(directory.currentPath) is a regular file or other non-link, not a symbolic link to a version"
        case "a link to nothing": "\(directory.currentPath) points at 20990101T000000Z-001.sqlite, which does not exist"
        default: "\(version) fails PRAGMA quick_check: "
        }
        #expect(night.stderr.hasPrefix("ingest: current cannot be read: \(reason)"), "\(night.stderr)")
        #expect(night.stderr.hasSuffix("; nothing was published. Switch current to a good version (ingest snapshots rollback VERSION), or run with --first-night to start a new history on purpose\n"))
        #expect(try directory.versions() == [version])

        // On purpose: a first night, tonight's four feeds without 5060.
        let fresh = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", history.snapshots, "--mappings", RepositoryFiles.mappingsDirectory,
                                              "--as-of", "2024-05-21T06:00:00+03:00", "--first-night"])
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(try history.current().int("SELECT count(*) FROM pharmacies") == 3)
    }
}
