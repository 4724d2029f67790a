import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// FEEDS.md §12.1, files without a date: a wholesaler's fixed-width file
/// republished under one name every day. Its export time is its
/// modification time (or the run's); the `loaded_exports` ledger keeps the
/// bytes of every export loaded, so a touched, renamed or replayed file is
/// skipped `duplicate` whatever its time says, and new bytes load.
@Suite struct DatelessExportTests {
    static func mapping(date: String) -> String {
        """
        [match]
        filename = "transfer*.dat"
        [format]
        type = "fixed"
        encoding = "windows-1252"
        [prices]
        currency = "CHF"
        includes_vat = true
        [pharmacy]
        id = "CH-1"
        [export]
        date = "\(date)"
        [columns]
        aptcode = [1, 7]
        name = [8, 27]
        price = [28, 35]
        """
    }

    static func file(_ prices: [String]) -> String {
        zip(["1000001", "1000002"], prices).map { code, price in
            code + "ARNICA SALBE".padding(toLength: 20, withPad: " ", startingAt: 0) + price.padding(toLength: 8, withPad: " ", startingAt: 0)
        }.joined(separator: "\r\n") + "\r\n"
    }

    /// Noon in Tallinn on 2026-11-01 plus `day` days: the run of night `day`.
    static func night(_ day: Int) -> Date { Date(timeIntervalSince1970: 1_793_527_200 + Double(day) * 86_400) }

    struct World {
        let temporary = TemporaryDirectory()
        var feeds: String { "\(temporary.path)/feeds" }
        var snapshots: String { "\(temporary.path)/s" }

        init(mapping: String) {
            _ = temporary.subdirectory("feeds")
            _ = temporary.write("mappings/transfer.mapping.toml", text: mapping)
        }

        func put(_ name: String, _ text: String, modified: Date) throws {
            _ = temporary.write("feeds/\(name)", text: text)
            try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: "\(feeds)/\(name)")
        }

        func run(_ day: Int) throws -> (RunReport, SnapshotQuery) {
            var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots, mappingsDirectory: "\(temporary.path)/mappings",
                                        parseThreads: 2, asOf: DatelessExportTests.night(day))
            options.currency = "CHF"
            let report = try ImportRun(options: options).run()
            return (report, try SnapshotQuery("\(snapshots)/current"))
        }

        func line(_ report: RunReport, _ file: String) -> String {
            guard let feed = report.feeds.first(where: { $0.file == file }) else { return "missing" }
            return "\(feed.outcome.rawValue) \(feed.reason ?? "-") \(feed.exportedAt ?? "-")"
        }
    }

    @Test func aFileRepublishedUnderOneNameLoadsWhenItsBytesAreNew() throws {
        let world = World(mapping: Self.mapping(date: "modified"))
        let hour: TimeInterval = 3_600
        // Night 1: loaded, its export time its modification time.
        try world.put("transfer.dat", Self.file(["16.55", "4.20"]), modified: Self.night(1) - hour)
        let (first, one) = try world.run(1)
        #expect(world.line(first, "transfer.dat") == "loaded - 2026-11-02T11:00:00+02:00")
        #expect(one.rows("SELECT aptcode, price_cents FROM offers ORDER BY aptcode") == [["1000001", "1655"], ["1000002", "420"]])

        // Night 2: the same bytes, touched: skipped whatever the new time says; the data stays.
        try world.put("transfer.dat", Self.file(["16.55", "4.20"]), modified: Self.night(2) - hour)
        let (second, two) = try world.run(2)
        #expect(world.line(second, "transfer.dat") == "skipped duplicate 2026-11-03T11:00:00+02:00")
        #expect(second.feeds.first { $0.file == "transfer.dat" }?.message?.hasPrefix("the same bytes (SHA-256) as an export already loaded for pharmacy CH-1") == true)
        #expect(two.rows("SELECT aptcode, price_cents FROM offers ORDER BY aptcode") == [["1000001", "1655"], ["1000002", "420"]])

        // Night 3: republished under the same name with one price changed: loaded the next night.
        try world.put("transfer.dat", Self.file(["16.95", "4.20"]), modified: Self.night(3) - hour)
        let (third, three) = try world.run(3)
        #expect(world.line(third, "transfer.dat") == "loaded - 2026-11-04T11:00:00+02:00")
        #expect(three.rows("SELECT aptcode, price_cents FROM offers ORDER BY aptcode") == [["1000001", "1695"], ["1000002", "420"]])

        // Night 4: night 1's bytes again, renamed and newer: the ledger still knows them.
        try FileManager.default.removeItem(atPath: "\(world.feeds)/transfer.dat")
        try world.put("transfer_old.dat", Self.file(["16.55", "4.20"]), modified: Self.night(4) - hour)
        let (fourth, four) = try world.run(4)
        #expect(world.line(fourth, "transfer_old.dat") == "skipped duplicate 2026-11-05T11:00:00+02:00")
        #expect(four.rows("SELECT aptcode, price_cents FROM offers ORDER BY aptcode") == [["1000001", "1695"], ["1000002", "420"]])
        #expect(four.rows("SELECT pharmacy_id, export_time, loaded_at FROM loaded_exports ORDER BY loaded_at") == [
            ["CH-1", "2026-11-02T11:00:00+02:00", "2026-11-02T12:00:00+02:00"],
            ["CH-1", "2026-11-04T11:00:00+02:00", "2026-11-04T12:00:00+02:00"],
        ])
    }

    /// `date = "run"`: the run's time; the same bytes the next night are skipped.
    @Test func theRunsTimeForAFileWithoutOne() throws {
        let world = World(mapping: Self.mapping(date: "run"))
        try world.put("transfer.dat", Self.file(["16.55", "4.20"]), modified: Self.night(0))
        let (first, _) = try world.run(1)
        #expect(world.line(first, "transfer.dat") == "loaded - 2026-11-02T12:00:00+02:00")
        let (second, _) = try world.run(2)
        #expect(world.line(second, "transfer.dat") == "skipped duplicate 2026-11-03T12:00:00+02:00")
        try world.put("transfer.dat", Self.file(["17.00", "4.20"]), modified: Self.night(0))
        let (third, query) = try world.run(3)
        #expect(world.line(third, "transfer.dat") == "loaded - 2026-11-04T12:00:00+02:00")
        #expect(query.int("SELECT price_cents FROM offers WHERE aptcode = '1000001'") == 1700)
        #expect(query.int("SELECT count(*) FROM loaded_exports") == 2)
    }
}
