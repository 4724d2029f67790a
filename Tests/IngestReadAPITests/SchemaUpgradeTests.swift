import Foundation
import IngestCore
import IngestPipeline
import IngestReadAPI
import IngestSnapshot
import IngestTestSupport
import Testing

/// Schema 5's price history (SNAPSHOT.md "Price history") against schema
/// 4's over the same nights: `?q=h` answers exactly as before, from a
/// schema-4 file and from the schema-5 file of the same night, and a
/// schema-4 `current` upgraded on the next night holds what five nights of
/// schema 5 hold. The server reads both (READ_API.md, the upgrade bullet).
@Suite struct SchemaUpgradeTests {
    /// Night n: pharmacy 100's export of 20 + n November at 23:05; MM1's price moves, MM2's stays, MM3 leaves on night 3.
    static let prices: [[String: String]] = [
        ["MM1": "1,00", "MM2": "5,00", "MM3": "7,00"],
        ["MM1": "2,00", "MM2": "5,00", "MM3": "7,50"],
        ["MM1": "2,00", "MM2": "5,00", "MM3": "7,50"],
        ["MM1": "1,00", "MM2": "5,00"],
        ["MM1": "3,00", "MM2": "5,00", "MM3": "7,00"],
    ]

    /// Runs night `night` into `snapshots`; returns the published version.
    static func night(_ night: Int, feeds: String, snapshots: String) throws -> String {
        for file in try FileManager.default.contentsOfDirectory(atPath: feeds) { try FileManager.default.removeItem(atPath: "\(feeds)/\(file)") }
        var feed = RAXFeedBuilder(pharmacyID: "100", exportedAt: String(format: "202511%02dT2305", 20 + night))
        // Six items that never change keep the night's fall in offers far below the quality gates.
        let steady = Dictionary(uniqueKeysWithValues: (5...10).map { (String(format: "MX%02d", $0), "9,00") })
        for (aptcode, price) in prices[night].merging(steady) { $1 }.sorted(by: { $0.key < $1.key }) { feed.item(aptcode, price: price) }
        try Data(feed.bytes).write(to: URL(fileURLWithPath: "\(feeds)/rax_100.txt"))
        let options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots, mappingsDirectory: RepositoryFiles.mappingsDirectory,
                                    parseThreads: 2, asOf: Date(timeIntervalSince1970: TimeInterval(1_763_697_600 + night * 86_400)))
        return try #require(try ImportRun(options: options).run().publishedVersion)
    }

    /// Rewrites a published schema-5 file as schema 4 wrote it: every price,
    /// the one in force included, a row of `price_history`; no `price_since`.
    static func toSchemaFour(_ version: String, in directory: SnapshotDirectory) throws {
        let path = directory.snapshotPath(version)
        let database = try SQLiteDatabase(path: path)
        try database.execute("""
            INSERT INTO price_history(pharmacy_id, aptcode, since, price_cents) SELECT pharmacy_id, aptcode, price_since, price_cents FROM offers;
            DROP VIEW prices_over_time;
            ALTER TABLE offers DROP COLUMN price_since;
            PRAGMA user_version = 4; UPDATE meta SET value = '4' WHERE key = 'schema_version'
            """)
        try database.close()
        var manifest = try directory.readManifest(version)
        manifest.schemaVersion = 4
        manifest.snapshot.sha256 = try FileDigest.sha256(path: path)
        manifest.snapshot.size = Int64(try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int))
        try manifest.encoded().write(to: URL(fileURLWithPath: directory.manifestPath(version)))
    }

    static func answers(_ snapshot: OpenSnapshot) throws -> [String] {
        try ["MM1", "MM2", "MM3", "MM4"].map { aptcode in
            String(decoding: try ReadAPI.answer(try ReadQuery(["q": "h", "aptcode": aptcode, "client_id": "100"]), from: snapshot), as: UTF8.self)
        }
    }

    @Test func priceHistoryAnswersAlikeFromSchemaFourAndFiveAndAnUpgradeLosesNothing() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        let plain = SnapshotDirectory(path: "\(temporary.path)/plain")
        let upgraded = SnapshotDirectory(path: "\(temporary.path)/upgraded")
        for number in Self.prices.indices {
            let five = try Self.night(number, feeds: feeds, snapshots: plain.path)
            let fiveAnswers = try Self.answers(try OpenSnapshot(path: plain.snapshotPath(five), version: five))
            // The other history goes through schema 4 every night: each night upgrades the file before.
            let other = try Self.night(number, feeds: feeds, snapshots: upgraded.path)
            #expect(try Self.answers(try OpenSnapshot(path: upgraded.snapshotPath(other), version: other)) == fiveAnswers, "night \(number)")
            try Self.toSchemaFour(other, in: upgraded)
            let four = try OpenSnapshot(path: upgraded.snapshotPath(other), version: other)
            #expect(four.schema == 4)
            #expect(try Self.answers(four) == fiveAnswers, "night \(number), schema 4")
        }
        let last = try #require(plain.currentVersion())
        #expect(try Self.answers(try OpenSnapshot(path: plain.snapshotPath(last), version: last)) == [
            #"{"price_history":[{"d":"24.11.2025","p":"3.00€"},{"d":"23.11.2025","p":"1.00€"},{"d":"21.11.2025","p":"2.00€"},{"d":"20.11.2025","p":"1.00€"}]}"#,
            #"{"price_history":[{"d":"20.11.2025","p":"5.00€"}]}"#,
            // MM3 left on night 3 and took its history with it.
            #"{"price_history":[{"d":"24.11.2025","p":"7.00€"}]}"#,
            #"{"price_history":[]}"#,
        ])
        let query = try SnapshotQuery(plain.snapshotPath(last))
        #expect(query.rows("SELECT aptcode, since, price_cents FROM price_history ORDER BY aptcode, since") == [
            ["MM1", "2025-11-20T23:05:00+02:00", "100"],
            ["MM1", "2025-11-21T23:05:00+02:00", "200"],
            ["MM1", "2025-11-23T23:05:00+02:00", "100"],
        ].map { $0.map(Optional.some) })
    }

    /// A first night writes no history row: the file grows with what changes.
    @Test func aFirstNightWritesNoHistory() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        let directory = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        let version = try Self.night(0, feeds: feeds, snapshots: directory.path)
        let query = try SnapshotQuery(directory.snapshotPath(version))
        #expect(query.rows("SELECT count(*) FROM price_history") == [["0"]])
        #expect(query.rows("SELECT DISTINCT price_since FROM offers") == [["2025-11-20T23:05:00+02:00"]])
        #expect(query.rows("SELECT count(*) FROM offers") == [["9"]])
    }

    /// READ_API.md's upgrade bullet: the server reads this schema and the
    /// one before. Its `current` is the older importer's last night (schema
    /// 4) when the new importer's first night publishes under it: every
    /// answer asked meanwhile is a 200 (no 503 while nothing of the new
    /// schema exists yet, no 500), the new version is served once published,
    /// and a client on the older version is told to take the whole file.
    @Test func anUpgradeUnderARunningServerNeverTakesTheAPIDown() async throws {
        let temporary = TemporaryDirectory()
        try ServeEndToEndTests.generate(temporary, "n1")
        try ServeEndToEndTests.generate(temporary, "n2", ["--days-later", "1", "--price-change-rate", "0.3"])
        try ServeEndToEndTests.importNight(temporary, "n1", day: "2025-11-21")
        let directory = SnapshotDirectory(path: "\(temporary.path)/s")
        let older = try #require(directory.currentVersion())
        try Self.toSchemaFour(older, in: directory)
        let server = try ServeEndToEndTests.Server(snapshots: directory.path, log: "\(temporary.path)/serve.log")
        let base = server.base
        let health = try await ServeEndToEndTests.get("\(base)/health")
        #expect(health.status == 200 && health.version == older && String(decoding: health.body, as: UTF8.self).contains(#""schema":4"#))
        let pharmacy = try #require(try SnapshotQuery(directory.snapshotPath(older)).value("SELECT pharmacy_id FROM offers ORDER BY 1 LIMIT 1"))
        let aptcode = try #require(try SnapshotQuery(directory.snapshotPath(older)).value("SELECT aptcode FROM offers WHERE pharmacy_id = '\(pharmacy)' ORDER BY 1 LIMIT 1"))

        let stop = ServeEndToEndTests.StopSignal()
        let clients = Task {
            var statuses: [Int: Int] = [:]
            var versions: Set<String> = []
            while !stop.isSet {
                for path in ["/health", "/?q=a", "/?q=p", "/?q=h&aptcode=\(aptcode)&client_id=\(pharmacy)", "/?q=ip&aptcode=\(aptcode)"] {
                    let answer = try await ServeEndToEndTests.get(base + path)
                    statuses[answer.status, default: 0] += 1
                    if let version = answer.version { versions.insert(version) }
                }
            }
            return (statuses, versions)
        }
        try ServeEndToEndTests.importNight(temporary, "n2", day: "2025-11-22")
        let newer = try #require(directory.currentVersion())
        try await Polling.until("the server to serve the upgraded night") { try await ServeEndToEndTests.get("\(base)/health").version == newer }
        stop.set()
        let (statuses, versions) = try await clients.value
        #expect(Set(statuses.keys) == [200], "\(statuses)")
        #expect(versions.isSubset(of: [older, newer]))
        let upgraded = try await ServeEndToEndTests.get("\(base)/health")
        #expect(String(decoding: upgraded.body, as: UTF8.self).contains(#""schema":\#(SnapshotSchema.version)"#))
        // No changeset joins the two schemas: the client on the older one takes the whole file.
        let changes = try await ServeEndToEndTests.get("\(base)/?q=changes&since=\(older)")
        #expect(changes.status == 410, "\(changes.status)")
        #expect(try directory.readManifest(newer).changeset == nil)
    }
}
