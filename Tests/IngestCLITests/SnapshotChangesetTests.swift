import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// `snapshots changeset FROM TO`: applied to a copy of FROM, the changeset
/// gives a database with TO's content, table by table, search included; it
/// refuses a base that is not FROM.
@Suite struct SnapshotChangesetTests {
    @Test func aChangesetTurnsTheOlderSnapshotIntoTheNewer() throws {
        let temporary = TemporaryDirectory()
        for (name, extra) in [("n1", [String]()), ("n2", ["--days-later", "1", "--bad-rate", "0.02", "--price-change-rate", "0.1"])] {
            let generated = try CommandRunner.ingest(["generate", "--out", "\(temporary.path)/\(name)", "--pharmacies", "10", "--items", "60",
                                                      "--seed", "11"] + extra)
            #expect(generated.status == 0, "\(generated.stderr)")
        }
        let snapshots = "\(temporary.path)/s"
        for (night, day) in [("n1", "2025-11-21"), ("n2", "2025-11-22")] {
            let run = try CommandRunner.ingest(["--feeds", "\(temporary.path)/\(night)/feeds", "--mappings", "\(temporary.path)/\(night)/mappings",
                                                "--snapshots", snapshots, "--as-of", day])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let directory = SnapshotDirectory(path: snapshots)
        let versions = directory.versions()
        try #require(versions.count == 2)
        let out = "\(temporary.path)/night.changeset"
        let made = try CommandRunner.ingest(["snapshots", "changeset", versions[0], versions[1], "--snapshots", snapshots, "--out", out])
        #expect(made.status == 0, "\(made.stderr)")
        let changeset = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(made.stdout.hasPrefix("\(versions[0]) → \(versions[1]): \(changeset.count) bytes (the snapshot is "))

        let copy = "\(temporary.path)/client.sqlite"
        try FileManager.default.copyItem(atPath: directory.snapshotPath(versions[0]), toPath: copy)
        try SnapshotChangeset.apply(changeset, to: copy)

        let database = try SQLiteDatabase(path: copy, readOnly: true)
        try database.execute("ATTACH DATABASE '\(directory.snapshotPath(versions[1]))' AS target")
        let tables = try database.strings("""
            SELECT name FROM pragma_table_list WHERE schema = 'target' AND type = 'table' AND name NOT LIKE 'sqlite_%'
            """)
        #expect(tables.contains("offers") && tables.contains("gs1_children") && tables.contains("reimbursement_diagnoses"))
        for table in tables {
            let rows = try database.scalarInt("SELECT count(*) FROM target.\(table)")
            #expect(try database.scalarInt("SELECT count(*) FROM main.\(table)") == rows, "\(table)")
            #expect(try database.scalarInt("SELECT count(*) FROM (SELECT * FROM main.\(table) EXCEPT SELECT * FROM target.\(table))") == 0, "\(table)")
            #expect(try database.scalarInt("SELECT count(*) FROM (SELECT * FROM target.\(table) EXCEPT SELECT * FROM main.\(table))") == 0, "\(table)")
        }
        // The night changed prices: the changeset had work to do.
        try database.execute("ATTACH DATABASE '\(directory.snapshotPath(versions[0]))' AS origin")
        #expect((try database.scalarInt("SELECT count(*) FROM (SELECT * FROM target.offers EXCEPT SELECT * FROM origin.offers)") ?? 0) > 0)
        try database.close()
        // Both search indexes were rebuilt from the new items and answer as the newer snapshot's do.
        let client = try SQLiteDatabase(path: copy)
        for index in SnapshotSchema.searchIndexNames { try client.execute("INSERT INTO \(index)(\(index)) VALUES ('integrity-check')") }
        try client.execute("ATTACH DATABASE '\(directory.snapshotPath(versions[1]))' AS target")
        let words = try client.strings("SELECT DISTINCT substr(name, 1, instr(name || ' ', ' ') - 1) FROM target.items ORDER BY 1")
        #expect(words.count > 5)
        for word in words {
            for (index, query) in [("items_search", "\(word)*"), ("items_substring", "\"\(word.lowercased())\"")] {
                let sql = "SELECT aptcode FROM %@.items WHERE rowid IN (SELECT rowid FROM %@.\(index) WHERE \(index) MATCH ?) ORDER BY aptcode"
                let found = try client.strings(sql.replacingOccurrences(of: "%@", with: "main"), .text(query))
                let expected = try client.strings(sql.replacingOccurrences(of: "%@", with: "target"), .text(query))
                #expect(!found.isEmpty && found == expected, "\(index) \(query)")
            }
        }
        try client.close()

        // Any other base is refused, and left as it was.
        let wrong = "\(temporary.path)/wrong.sqlite"
        try FileManager.default.copyItem(atPath: directory.snapshotPath(versions[1]), toPath: wrong)
        #expect(throws: SQLiteError.self) { try SnapshotChangeset.apply(changeset, to: wrong) }
        let untouched = try SQLiteDatabase(path: wrong, readOnly: true)
        try untouched.execute("ATTACH DATABASE '\(directory.snapshotPath(versions[1]))' AS target")
        #expect(try untouched.scalarInt("SELECT count(*) FROM (SELECT * FROM main.offers EXCEPT SELECT * FROM target.offers)") == 0)
        try untouched.close()
    }
}
