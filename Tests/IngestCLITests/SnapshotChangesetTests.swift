import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// `snapshots changeset FROM TO`: applied to a copy of FROM, the changeset
/// gives a database with TO's content, table by table, search included; it
/// refuses a base that is not FROM.
@Suite struct SnapshotChangesetTests {
    /// Two generated nights (the second a day later, with bad records and a tenth of the prices changed) imported by the CLI.
    static func twoNights(_ temporary: TemporaryDirectory, seed: Int) throws -> (SnapshotDirectory, [String]) {
        for (name, extra) in [("n1", [String]()), ("n2", ["--days-later", "1", "--bad-rate", "0.02", "--price-change-rate", "0.1"])] {
            let generated = try CommandRunner.ingest(["generate", "--out", "\(temporary.path)/\(name)", "--pharmacies", "10", "--items", "60",
                                                      "--seed", "\(seed)"] + extra)
            #expect(generated.status == 0, "\(generated.stderr)")
        }
        let snapshots = "\(temporary.path)/s"
        for (night, day) in [("n1", "2025-11-21"), ("n2", "2025-11-22")] {
            // The generated second night rejects a file of each kind, most of a world of ten: the fresh-share gate is left out.
            let run = try CommandRunner.ingest(["--feeds", "\(temporary.path)/\(night)/feeds", "--mappings", "\(temporary.path)/\(night)/mappings",
                                                "--snapshots", snapshots, "--as-of", day, "--min-fresh-share", "0"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let directory = SnapshotDirectory(path: snapshots)
        let versions = try directory.versions()
        try #require(versions.count == 2)
        return (directory, versions)
    }

    @Test func aChangesetTurnsTheOlderSnapshotIntoTheNewer() throws {
        let temporary = TemporaryDirectory()
        let (directory, versions) = try Self.twoNights(temporary, seed: 11)
        let snapshots = directory.path
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

/// The night's own changeset, taken by a client that has nothing but
/// libsqlite3: a C program calling only `sqlite3changeset_apply` (every
/// conflict aborts) turns a copy of yesterday's file into tonight's, every
/// ordinary table and `meta` alike (the search indexes, keyed by rowid, are
/// the client's to rebuild).
@Suite struct NightlyChangesetTests {
    static let applyProgram = #"""
        #define SQLITE_ENABLE_SESSION 1
        #define SQLITE_ENABLE_PREUPDATE_HOOK 1
        #include <sqlite3.h>
        #include <stdio.h>
        #include <stdlib.h>

        static int abort_on_conflict(void *context, int kind, sqlite3_changeset_iter *change) { return SQLITE_CHANGESET_ABORT; }

        int main(int argc, char **argv) {
            FILE *file = fopen(argv[2], "rb");
            if (!file) return 2;
            fseek(file, 0, SEEK_END);
            long size = ftell(file);
            fseek(file, 0, SEEK_SET);
            void *bytes = malloc(size > 0 ? size : 1);
            if (fread(bytes, 1, size, file) != (size_t)size) return 2;
            sqlite3 *db;
            if (sqlite3_open(argv[1], &db) != SQLITE_OK) return 2;
            int code = sqlite3changeset_apply(db, (int)size, bytes, NULL, abort_on_conflict, NULL);
            printf("%d\n", code);
            return sqlite3_close(db) == SQLITE_OK && code == SQLITE_OK ? 0 : 1;
        }
        """#

    @Test func aClientWithOnlyLibsqliteAppliesTheNightsChangeset() throws {
        let temporary = TemporaryDirectory()
        let (directory, versions) = try SnapshotChangesetTests.twoNights(temporary, seed: 12)
        let nightly = try #require(try directory.readManifest(versions[1]).changeset)
        #expect(nightly.from == versions[0] && nightly.file == "\(versions[1]).changeset")
        #expect(try FileDigest.sha256(path: directory.changesetPath(versions[1])) == nightly.sha256)

        let source = temporary.write("apply.c", text: Self.applyProgram)
        let compiled = try CommandRunner.program("clang", [source, "-o", "\(temporary.path)/apply", "-lsqlite3"])
        try #require(compiled.status == 0, "\(compiled.stderr)")
        let copy = "\(temporary.path)/client.sqlite"
        try FileManager.default.copyItem(atPath: directory.snapshotPath(versions[0]), toPath: copy)
        let applied = try CommandRunner.program("\(temporary.path)/apply", [copy, directory.changesetPath(versions[1])])
        #expect(applied.status == 0 && applied.stdout == "0\n", "\(applied.stdout)\(applied.stderr)")
        #expect(try SnapshotContent.difference(old: copy, new: directory.snapshotPath(versions[1]), ignoring: []) == nil)
        #expect(try SnapshotContent.difference(old: directory.snapshotPath(versions[0]), new: directory.snapshotPath(versions[1]), ignoring: []) != nil)
    }
}
