import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// A snapshot as generic clients see it: Datasette itself (PyPI's, in
/// `var/test-venv`, installed by `make test-tools`) opened on `current` with
/// the metadata file written beside the snapshot, asked with `--get` (no
/// server); and sqlite-utils' own detection of the items' search index.
@Suite struct DatasetteTests {
    private static let tools = "\(RepositoryFiles.root)/var/test-venv/bin"

    /// What `datasette DB --metadata M --get PATH` prints.
    private func datasette(_ database: String, metadata: String, get path: String) throws -> String {
        try tool("datasette", [database, "--metadata", metadata, "--get", path])
    }

    private func tool(_ name: String, _ arguments: [String]) throws -> String {
        let executable = "\(Self.tools)/\(name)"
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            Issue.record("no \(name) at \(executable): `make test-tools` (run by `make test`) installs it")
            return ""
        }
        let result = try CommandRunner.executable(executable, arguments)
        #expect(result.status == 0, "\(name) \(arguments): \(result.stderr)")
        return result.stdout
    }

    private func objects(_ json: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]], "\(json.prefix(300))")
    }

    /// Imports `feeds` into a new snapshot directory; returns `current` and the metadata file beside it.
    private func importFeeds(_ feeds: String, mappings: String, into snapshots: String, extra: [String] = []) throws -> (current: String, metadata: String) {
        let run = try CommandRunner.ingest(["--feeds", feeds, "--mappings", mappings, "--snapshots", snapshots] + extra)
        #expect(run.status == 0, "\(run.stderr)")
        let directory = SnapshotDirectory(path: snapshots)
        let version = try #require(directory.currentVersion())
        return (directory.currentPath, directory.datasettePath(version))
    }

    /// The aptcodes of items whose name, producer or substance contains `text`, whatever the case: what a search box should find.
    private func itemsContaining(_ text: String, in snapshot: String) throws -> [String] {
        let query = try SnapshotQuery(snapshot)
        return query.rows("SELECT aptcode, name, producer, active_substance FROM items").filter { row in
            row.dropFirst().contains { $0?.lowercased().contains(text.lowercased()) ?? false }
        }.map { $0[0]! }.sorted()
    }

    @Test func theSearchBoxFindsIbumetinAndIndexesAreDetected() throws {
        let temporary = TemporaryDirectory()
        let (current, metadata) = try importFeeds("\(RepositoryFiles.root)/feeds", mappings: "\(RepositoryFiles.root)/mappings",
                                                  into: "\(temporary.path)/s")
        let found = try objects(try datasette(current, metadata: metadata, get: "/current/items.json?_search=ibu&_shape=array&_size=max"))
        let names = found.compactMap { $0["name"] as? String }
        #expect(names.contains("IBUMETIN TBL 400MG N10"))
        let containing = try itemsContaining("ibu", in: current)
        #expect(found.compactMap { $0["aptcode"] as? String }.sorted() == containing)
        // Estonian letters fold as in the word index.
        let shampoo = try objects(try datasette(current, metadata: metadata, get: "/current/items.json?_search=%C3%95RN&_shape=array"))
        #expect(shampoo.compactMap { $0["name"] as? String } == ["ŠAMPOON ÕRN 200ML"])

        // The items page offers the search box; the search indexes are hidden from the table list.
        let itemsPage = "\(temporary.path)/items.html"
        try Data(try datasette(current, metadata: metadata, get: "/current/items").utf8).write(to: URL(fileURLWithPath: itemsPage))
        #expect(try HTMLPage(path: itemsPage).texts("//input[@id='_search']/@name") == ["_search"])
        let databasePage = "\(temporary.path)/database.html"
        try Data(try datasette(current, metadata: metadata, get: "/current").utf8).write(to: URL(fileURLWithPath: databasePage))
        let listed = try HTMLPage(path: databasePage).texts("//h3/a")
        #expect(listed.contains("offers") && !listed.contains { $0.hasPrefix("items_s") }, "\(listed)")

        // sqlite-utils finds the word index by itself and searches through it.
        let detected = try tool("python3", ["-c", """
            import sys, sqlite_utils
            db = sqlite_utils.Database(sys.argv[1])
            print(db["items"].detect_fts())
            print(" ".join(sorted(row["aptcode"] for row in db["items"].search("ibu*"))))
            """, current])
        #expect(detected == "items_search\n" + containing.joined(separator: " ") + "\n")
    }

    @Test func foreignKeysShowLabelsAndTheMetadataDescribesEveryColumn() throws {
        let temporary = TemporaryDirectory()
        let generated = try CommandRunner.ingest(["generate", "--out", "\(temporary.path)/g", "--pharmacies", "6", "--items", "80", "--seed", "5"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let (current, metadata) = try importFeeds("\(temporary.path)/g/feeds", mappings: "\(temporary.path)/g/mappings", into: "\(temporary.path)/s")
        let query = try SnapshotQuery(current)

        // Offers show the pharmacy's and the item's name for their ids.
        let offers = try objects(try datasette(current, metadata: metadata, get: "/current/offers.json?_labels=on&_shape=array&_size=50"))
        #expect(offers.count == 50)
        for offer in offers {
            let pharmacy = try #require(offer["pharmacy_id"] as? [String: Any])
            let item = try #require(offer["aptcode"] as? [String: Any])
            let pharmacyID = try #require(pharmacy["value"] as? String)
            let aptcode = try #require(item["value"] as? String)
            #expect(pharmacy["label"] as? String == query.value("SELECT name FROM pharmacies WHERE id = '\(pharmacyID)'"))
            #expect(item["label"] as? String == query.value("SELECT name FROM items WHERE aptcode = '\(aptcode)'"))
        }

        // A generated word's middle finds exactly the items containing it.
        let name = try #require(query.value("SELECT name FROM items ORDER BY aptcode LIMIT 1"))
        let part = String(name.split(separator: " ")[0].dropFirst().prefix(4)).lowercased()
        let escaped = try #require(part.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let found = try objects(try datasette(current, metadata: metadata, get: "/current/items.json?_search=\(escaped)&_shape=array&_size=max"))
        let containing = try itemsContaining(part, in: current)
        #expect(!found.isEmpty && found.compactMap { $0["aptcode"] as? String }.sorted() == containing, "\(part)")

        // Every table and every column of the snapshot is described, and Datasette shows it.
        let page = "\(temporary.path)/offers.html"
        try Data(try datasette(current, metadata: metadata, get: "/current/offers").utf8).write(to: URL(fileURLWithPath: page))
        let offersPage = try HTMLPage(path: page)
        #expect(offersPage.text("//h1") == "Offers")
        #expect(offersPage.text("//dl[@class='column-descriptions']/dt[.='price_cents']/following-sibling::dd[1]") == "Shelf price, euro cents")
        let file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: metadata))) as? [String: Any])
        let databases = try #require(file["databases"] as? [String: [String: Any]])
        let version = try #require(SnapshotDirectory(path: "\(temporary.path)/s").currentVersion())
        #expect(Set(databases.keys) == [version, "current"])
        let tables = try #require(databases["current"]?["tables"] as? [String: [String: Any]])
        for table in query.rows("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'").map({ $0[0]! }) {
            let described = try #require(tables[table], "\(table) is not described")
            let columns = described["columns"] as? [String: String] ?? [:]
            let actual = query.rows("SELECT name FROM pragma_table_info('\(table)')").map { $0[0]! }
            #expect(Set(columns.keys) == Set(actual), "\(table)")
            for column in actual where column.hasSuffix("_cents") { #expect(columns[column]?.contains("euro cents") == true, "\(table).\(column)") }
        }
    }
}
