import Foundation
import IngestCore
import IngestPipeline
import IngestReadAPI
import IngestSnapshot
import IngestTestSupport
import Testing

/// READ_API.md Version 3, "Where to go now", over two nights: opening hours
/// read from the registry into `pharmacy_hours` (both notations, free text
/// kept with a warning), `openNow` and `at`, each pharmacy's `on` and `oh`,
/// and each offer's `d`, `s` and `maxAge`. Night 2 changes a pharmacy's
/// hours and leaves one pharmacy's feed out, so it is carried over.
///
/// 20 November 2025 is a Thursday; the service's zone is Europe/Tallinn (UTC+2 in November).
@Suite(.serialized) struct WhereToGoNowTests {
    static let hours = [
        1: ["100": "E-R 10-21; L,P 12-20", "200": "Mo-Fr 08:00-20:00; Sa 10:00-16:00; PH off", "300": "helistage ette", "400": "24/7"],
        2: ["100": "E-P 9-22", "200": "Mo-Fr 08:00-20:00; Sa 10:00-16:00; PH off", "300": "helistage ette", "400": "24/7"],
    ]

    /// The snapshot of night 1 or 2 (and the run's report), opened.
    static func night(_ last: Int) throws -> (snapshot: OpenSnapshot, report: RunReport, database: SnapshotQuery, temporary: TemporaryDirectory) {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        let snapshots = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        var result: (String, RunReport)?
        for night in 1...last {
            for file in try FileManager.default.contentsOfDirectory(atPath: feeds) { try FileManager.default.removeItem(atPath: "\(feeds)/\(file)") }
            var registry = "id,name,chain_id,region,address,phone,open_hours,latitude,longitude\n"
            for (index, id) in ["100", "200", "300", "400"].enumerated() {
                registry += "\(id),APTEEK \(id),1,TALLINN,Tee \(index + 1),+372 600 000\(index),\"\(hours[night]![id]!)\",59.43\(index),24.75\(index)\n"
            }
            _ = temporary.write("feeds/pharmacies.csv", text: registry)
            // Pharmacy 400's feed comes on night 1 only.
            for id in night == 1 ? ["100", "200", "300", "400"] : ["100", "200", "300"] {
                var feed = RAXFeedBuilder(pharmacyID: id, pharmacyName: "APTEEK \(id)", exportedAt: "202511\(19 + night)T2305")
                feed.item("MM1", name: "IBUMETIN TBL 400MG N10", price: "2,00", quantity: "4")
                for steady in 2...8 { feed.item("MM\(steady)", name: "ITEM \(steady)", price: "1,00") }
                _ = temporary.write("feeds/rax_\(id).txt", bytes: feed.bytes)
            }
            let options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots.path, mappingsDirectory: RepositoryFiles.mappingsDirectory,
                                        parseThreads: 2, asOf: Date(timeIntervalSince1970: TimeInterval(1_763_697_600 + (night - 1) * 86_400)))
            let report = try ImportRun(options: options).run()
            result = (try #require(report.publishedVersion, "night \(night)"), report)
        }
        let (version, report) = try #require(result)
        let path = snapshots.snapshotPath(version)
        return (try OpenSnapshot(path: path, version: version), report, try SnapshotQuery(path), temporary)
    }

    /// The answer's pharmacies (or offers) as [id: [field: value]] for `fields`, in answer order.
    static func entries(_ snapshot: OpenSnapshot, _ parameters: [String: String], _ fields: [String]) throws -> [[String]] {
        let body = try JSONSerialization.jsonObject(with: ReadAPI.answer(try ReadQuery(parameters), from: snapshot)) as? [String: Any]
        let groups = (body?["regions"] ?? body?["item_pharmacies"]) as? [[String: Any]] ?? []
        return groups.flatMap { ($0["p"] as? [[String: String]]) ?? [] }.map { entry in fields.map { entry[$0] ?? "(absent)" } }
    }

    @Test func hoursAreReadIntoTheSnapshotAndFreeTextIsKeptWithAWarning() throws {
        let (_, report, database, temporary) = try Self.night(1)
        defer { _ = temporary }
        #expect(database.rows("SELECT pharmacy_id, weekday, opens, closes FROM pharmacy_hours WHERE pharmacy_id IN ('100', '200') ORDER BY 1, 2") == [
            ["100", "1", "10:00", "21:00"], ["100", "2", "10:00", "21:00"], ["100", "3", "10:00", "21:00"], ["100", "4", "10:00", "21:00"],
            ["100", "5", "10:00", "21:00"], ["100", "6", "12:00", "20:00"], ["100", "7", "12:00", "20:00"],
            ["200", "1", "08:00", "20:00"], ["200", "2", "08:00", "20:00"], ["200", "3", "08:00", "20:00"], ["200", "4", "08:00", "20:00"],
            ["200", "5", "08:00", "20:00"], ["200", "6", "10:00", "16:00"],
        ])
        #expect(database.value("SELECT count(*) FROM pharmacy_hours WHERE pharmacy_id = '300'") == "0")
        #expect(database.value("SELECT count(*) FROM pharmacy_hours WHERE pharmacy_id = '400' AND opens = '00:00' AND closes = '24:00'") == "7")
        #expect(database.value("SELECT open_hours FROM pharmacies WHERE id = '300'") == "helistage ette", "free text stays as it came")
        #expect(report.warningCounts[.freeTextHours] == 1)
    }

    @Test func openNowAndEachPharmacysHoursOfTheDayAcrossTwoNights() throws {
        let first = try Self.night(1)
        // Sunday 23 November 11:00: night 1 says 100 opens at 12 on Sundays.
        #expect(try Self.entries(first.snapshot, ["q": "p", "at": "2025-11-23T11:00"], ["i", "on", "oh", "o"]) == [
            ["100", "0", "12:00-20:00", "E-R 10-21; L,P 12-20"], ["200", "0", "", "Mo-Fr 08:00-20:00; Sa 10:00-16:00; PH off"],
            ["300", "", "", "helistage ette"], ["400", "1", "00:00-24:00", "24/7"],
        ])
        #expect(try Self.entries(first.snapshot, ["q": "p", "at": "2025-11-23T11:00", "openNow": "1"], ["i"]) == [["400"]])
        let second = try Self.night(2)
        // Night 2: 100 is open every day 9-22.
        #expect(try Self.entries(second.snapshot, ["q": "p", "at": "2025-11-23T11:00", "openNow": "1"], ["i", "on", "oh"])
            == [["100", "1", "09:00-22:00"], ["400", "1", "00:00-24:00"]])
        // The same moment with an offset: 09:00Z is 11:00 in Tallinn.
        #expect(try Self.entries(second.snapshot, ["q": "p", "at": "2025-11-23T09:00:00Z", "openNow": "1"], ["i"]) == [["100"], ["400"]])
        // Saturday 22 November 10:30: 200 opens at 10 on Saturdays.
        #expect(try Self.entries(second.snapshot, ["q": "p", "at": "2025-11-22T10:30", "openNow": "1"], ["i", "oh"])
            == [["100", "09:00-22:00"], ["200", "10:00-16:00"], ["400", "00:00-24:00"]])
        // Sunday 08:30: only the one open day and night.
        #expect(try Self.entries(second.snapshot, ["q": "p", "at": "2025-11-23T08:30", "openNow": "1"], ["i"]) == [["400"]])
        // Without `at`: the context's clock, in the service's zone (Monday 24 November 07:30 UTC = 09:30 Tallinn).
        let monday = ReadContext(now: Date(timeIntervalSince1970: 1_763_969_400))
        let body = try JSONSerialization.jsonObject(with: ReadAPI.answer(try ReadQuery(["q": "p", "openNow": "1"]), from: second.snapshot,
                                                                        context: monday)) as? [String: Any]
        let open = ((body?["regions"] as? [[String: Any]])?.first?["p"] as? [[String: String]])?.map { $0["i"] ?? "" }
        #expect(open == ["100", "200", "400"])
        let inHelsinki = ReadContext(now: Date(timeIntervalSince1970: 1_763_969_400), timeZone: TimeZone(identifier: "UTC")!)
        let early = try JSONSerialization.jsonObject(with: ReadAPI.answer(try ReadQuery(["q": "p", "openNow": "1"]), from: second.snapshot,
                                                                         context: inHelsinki)) as? [String: Any]
        #expect(((early?["regions"] as? [[String: Any]])?.first?["p"] as? [[String: String]])?.map { $0["i"] ?? "" } == ["400"],
                "07:30 where the service is: only 400")
        _ = (first.temporary, second.temporary)
    }

    @Test func offersSayTheirDateAndWhetherCarriedAndMaxAgeKeepsTheFreshOnes() throws {
        let (snapshot, _, database, temporary) = try Self.night(2)
        defer { _ = temporary }
        #expect(database.value("SELECT stale FROM pharmacies WHERE id = '400'") == "1")
        let at = ["q": "ip", "aptcode": "mm1", "at": "2025-11-22T12:00"]
        #expect(try Self.entries(snapshot, at, ["pi", "d", "s", "on", "oh"]) == [
            ["100", "21.11.2025", "0", "1", "09:00-22:00"], ["200", "21.11.2025", "0", "1", "10:00-16:00"],
            ["300", "21.11.2025", "0", "", ""], ["400", "20.11.2025", "1", "1", "00:00-24:00"],
        ])
        // 400's export (20.11 23:05) is 36 hours before `at`; the others' 13 hours.
        #expect(try Self.entries(snapshot, at.merging(["maxAge": "1"]) { $1 }, ["pi"]) == [["100"], ["200"], ["300"]])
        #expect(try Self.entries(snapshot, at.merging(["maxAge": "2"]) { $1 }, ["pi"]).count == 4)
        #expect(try Self.entries(snapshot, at.merging(["maxAge": "1", "openNow": "1"]) { $1 }, ["pi"]) == [["100"], ["200"]])
        for (name, value, reason) in [("maxAge", "-1", "maxAge is a whole number of days, not \"-1\""), ("openNow", "yes", "openNow is 0 or 1, not \"yes\""),
                                      ("at", "23.11.2025", "at is an ISO 8601 time such as 2025-11-21T10:30 or 2025-11-21T10:30:00+02:00, not \"23.11.2025\"")] {
            #expect(throws: ReadQuery.Invalid(reason: reason)) { try ReadQuery(["q": "ip", "aptcode": "MM1", name: value]) }
        }
    }
}
