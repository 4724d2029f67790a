import Foundation
import IngestCore
import IngestPipeline
import IngestReadAPI
import IngestSnapshot
import IngestTestSupport
import Testing

/// SNAPSHOT.md, money in other currencies, over two nights: a GBP snapshot
/// keeps pence, rejects the euro feeds whole (`wrong_currency`, never
/// converted), answers `£…`; a later night in another currency stops.
@Suite struct SnapshotCurrencyTests {
    /// The GBP price list mapping the real-data tests use too.
    static var mapping: String {
        get throws { try String(contentsOfFile: "\(RepositoryFiles.root)/Tests/RealData/uk-stock.mapping.toml", encoding: .utf8) }
    }

    static let feed = """
        APPID,NM,PRICE
        1714711000001106,Nutrison liquid 500 ml,485
        1714811000001103,Nutrison liquid 1 x 500ml pack,539
        4744711000001105,Adenocor 6mg/2ml 6 vial,0
        28781811000001106,Sodium chloride 0.9% 10ml,1001

        """

    @Test func aPoundSnapshotKeepsPenceAndRefusesEuroFeeds() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        let mappings = temporary.subdirectory("mappings")
        for file in try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.feedsDirectory) {
            try FileManager.default.copyItem(atPath: RepositoryFiles.feed(file), toPath: "\(feeds)/\(file)")
        }
        try FileManager.default.copyItem(atPath: "\(RepositoryFiles.mappingsDirectory)/zales24.mapping.toml", toPath: "\(mappings)/zales24.mapping.toml")
        _ = temporary.write("mappings/uk.mapping.toml", text: try Self.mapping)
        _ = temporary.write("feeds/uk_FA123_2024-05-19.csv", text: Self.feed)
        let snapshots = "\(temporary.path)/snapshots"
        var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots, mappingsDirectory: mappings,
                                    parseThreads: 2, asOf: Date(timeIntervalSince1970: 1_716_174_000)) // 2024-05-20T06:00+03:00
        options.currency = "GBP"
        let report = try ImportRun(options: options).run()
        let version = try #require(report.publishedVersion)
        let outcomes = report.feeds.filter { $0.kind == "stock" }.map { "\($0.file) \($0.outcome.rawValue) \($0.reason ?? "")" }.sorted()
        #expect(outcomes == [
            "noom_5061_20240519.xml rejected wrong_currency",
            "rax_31937_201105192305.txt rejected wrong_currency",
            "rax_5060_201012302305.txt rejected wrong_currency",
            "uk_FA123_2024-05-19.csv loaded ",
            "zales24_export_2013-06-01.csv rejected wrong_currency",
        ])
        // The Estonian list's amounts are euro: rejected whole, never converted; the night says once that no list is in force.
        let lists = report.feeds.filter { $0.kind == "reimbursement_list" }.map { "\($0.file) \($0.outcome.rawValue) \($0.reason ?? "")" }
        #expect(lists == ["reimbursement_2011-05-01.xml rejected wrong_currency"])
        #expect(report.feeds.first { $0.kind == "reimbursement_list" }?.message
                == "wrong_currency: the list's amounts are in EUR and the snapshot's in GBP: a reimbursement list is never converted; tier prices stay empty unless a list in GBP is in force")
        #expect(report.warnings.filter { $0.code == .noReimbursementList }.map(\.message)
                == ["no reimbursement list in force in GBP (none tonight, none to keep from current): every tier price is empty"])
        let rax = try #require(report.feeds.first { $0.file == "rax_5060_201012302305.txt" })
        #expect(rax.message == "wrong_currency: its prices are in EUR, the snapshot's currency is GBP (--currency); never converted at a market rate")
        let path = "\(snapshots)/\(version).sqlite"
        let query = try SnapshotQuery(path)
        #expect(query.rows("SELECT value FROM meta WHERE key = 'currency'") == [["GBP"]])
        #expect(query.rows("SELECT aptcode, price_cents FROM offers ORDER BY aptcode") == [
            ["1714711000001106", "485"], ["1714811000001103", "539"], ["28781811000001106", "1001"],
        ])
        let snapshot = try OpenSnapshot(path: path, version: version)
        let body = String(decoding: try ReadAPI.answer(try ReadQuery(["q": "ip", "aptcode": "28781811000001106"]), from: snapshot), as: UTF8.self)
        #expect(body.contains(#""p":"£10.01""#), "\(body)")
        let history = String(decoding: try ReadAPI.answer(try ReadQuery(["q": "h", "aptcode": "1714711000001106", "client_id": "FA123"]), from: snapshot), as: UTF8.self)
        #expect(history == #"{"price_history":[{"d":"19.05.2024","p":"£4.85"}]}"#)

        // The next night in euro: carried pence would read as cents; the run stops before reading a feed.
        let euro = try CommandRunner.ingest(["--feeds", feeds, "--mappings", mappings, "--snapshots", snapshots, "--as-of", "2024-05-21", "--quiet"])
        #expect(euro.status == 78)
        #expect(euro.stderr.contains("ingest: configuration error: --currency EUR, but current \(version) holds prices in GBP; a snapshot never mixes currencies. Run with --currency GBP, or with --first-night to start a history in EUR\n"), "\(euro.stderr)")
        // In pounds a re-run of the night goes on: nothing new, so nothing is published.
        let pounds = try CommandRunner.ingest(["--feeds", feeds, "--mappings", mappings, "--snapshots", snapshots, "--as-of", "2024-05-20T08:00:00+03:00",
                                               "--currency", "gbp"])
        #expect(pounds.status == 0, "\(pounds.stderr)")
    }

    /// A list that says its amounts are pounds serves a pound snapshot; in a euro night it is the one rejected.
    @Test func aListInTheSnapshotsCurrencyIsInForce() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        _ = temporary.write("feeds/reimbursement_2024-01-01.xml", text: """
            <reimbursementList validFrom="2024-01-01" currency="GBP"><package code="1144976"><limitPrice>1.89</limitPrice><tier rate="50"/></package></reimbursementList>
            """)
        var feed = RAXFeedBuilder(pharmacyID: "100", exportedAt: "20240519T2305")
        feed.item("MM1", price: "3,00")
        temporary.write("feeds/rax_100.txt", bytes: feed.bytes)
        for (currency, outcome, warned) in [("GBP", "loaded ", false), ("EUR", "rejected wrong_currency", true)] {
            var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: "\(temporary.path)/\(currency)",
                                        mappingsDirectory: RepositoryFiles.mappingsDirectory, parseThreads: 2,
                                        asOf: Date(timeIntervalSince1970: 1_716_174_000))
            options.currency = currency
            options.dryRun = true
            let report = try ImportRun(options: options).run()
            #expect(report.feeds.filter { $0.kind == "reimbursement_list" }.map { "\($0.outcome.rawValue) \($0.reason ?? "")" } == [outcome], "\(currency)")
            #expect(report.warnings.contains { $0.code == .noReimbursementList } == warned, "\(currency)")
        }
    }
}
