import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// The night's changeset (`SnapshotMerge` into `ChangesetWriter`) against
/// SQLite's own: the same bytes as `sqlite3session_diff` where the order
/// of records cannot differ (one change a table), and on many random
/// changes a changeset that `sqlite3changeset_apply` takes without a
/// conflict and that turns the older file into the newer exactly.
@Suite struct ChangesetWriterTests {
    static let schema = """
        CREATE TABLE plain(code TEXT PRIMARY KEY, amount INTEGER, ratio REAL, picture BLOB, note TEXT) WITHOUT ROWID;
        CREATE TABLE keyed(label TEXT, tier INTEGER, owner TEXT, value TEXT, PRIMARY KEY (tier, owner)) WITHOUT ROWID;
        CREATE TABLE rowids(name TEXT PRIMARY KEY, kind TEXT);
        CREATE TABLE gone(id INTEGER PRIMARY KEY, what TEXT);
        """

    static func database(_ path: String, _ sql: String) throws {
        let database = try SQLiteDatabase(path: path)
        try database.execute(schema)
        try database.execute(sql)
        try database.close()
    }

    static func ours(from old: String, to new: String, at path: String) throws -> ChangesetWriter.Written {
        let database = try SQLiteDatabase(path: new, readOnly: true)
        try database.execute("ATTACH DATABASE '\(old)' AS old")
        let writer = try ChangesetWriter(path: path)
        try SnapshotMerge.writeChangeset(in: database, tables: try SnapshotChangeset.changedTables(in: database), to: writer)
        return try writer.finish()
    }

    @Test func oneChangeATableIsByteForByteSQLitesOwn() throws {
        let temporary = TemporaryDirectory()
        let long = String(repeating: "Õ", count: 9_000) // a length past two varint bytes
        try Self.database("\(temporary.path)/old.sqlite", """
            INSERT INTO plain VALUES ('A', 1, 0.5, x'00ff', 'same'), ('B', -7, NULL, NULL, 'x');
            INSERT INTO keyed VALUES ('l', 50, 'p', 'v1'), ('m', 75, 'p', 'v2');
            INSERT INTO rowids VALUES ('n1', 'k');
            INSERT INTO gone VALUES (1, 'a'), (2, 'b');
            """)
        try Self.database("\(temporary.path)/new.sqlite", """
            INSERT INTO plain VALUES ('A', 1, 0.5, x'00ff', 'same'), ('B', 9223372036854775807, 2.25, x'01', '\(long)');
            INSERT INTO keyed VALUES ('l', 50, 'p', 'v1'), ('m', 75, 'p', 'v3');
            INSERT INTO rowids VALUES ('n1', 'k'), ('n2', NULL);
            INSERT INTO gone VALUES (1, 'a');
            """)
        let written = try Self.ours(from: "\(temporary.path)/old.sqlite", to: "\(temporary.path)/new.sqlite", at: "\(temporary.path)/ours.bin")
        let sqlite = try SnapshotChangeset.make(from: "\(temporary.path)/old.sqlite", to: "\(temporary.path)/new.sqlite")
        let ours = try Data(contentsOf: URL(fileURLWithPath: "\(temporary.path)/ours.bin"))
        let first = zip(ours, sqlite).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(ours.count, sqlite.count)
        #expect(ours == sqlite, "ours \(ours.count) bytes, SQLite's \(sqlite.count), first difference at \(first): ours \(Array(ours.dropFirst(max(0, first - 8)).prefix(24))), SQLite's \(Array(sqlite.dropFirst(max(0, first - 8)).prefix(24)))")
        #expect(written.records == 4)
        #expect(written.size == Int64(ours.count))
        #expect(written.sha256 == ChangesetDigest(of: ours).hex)
    }

    @Test func manyRandomChangesApplyWithoutConflictAndGiveTheNewerFile() throws {
        let temporary = TemporaryDirectory()
        var random = TestRandom(defaultSeed: 43)
        func rows(_ shift: Int) -> String {
            var plain: [String] = []
            var keyed: [String] = []
            for index in 0..<600 where random.next() % 5 != 0 {
                let amount = random.next() % 3 == 0 ? "\(index + shift)" : "\(index)"
                let note = random.next() % 7 == 0 ? "NULL" : "'n\(random.next() % 3)'"
                plain.append("('C\(String(format: "%04d", index))', \(amount), \(Double(index) / 4), NULL, \(note))")
                keyed.append("('k', \(index % 4 * 25), 'o\(index)', 'v\(random.next() % 2)')")
            }
            return "INSERT INTO plain VALUES \(plain.joined(separator: ", ")); INSERT INTO keyed VALUES \(keyed.joined(separator: ", "));"
        }
        try Self.database("\(temporary.path)/old.sqlite", rows(0))
        try Self.database("\(temporary.path)/new.sqlite", rows(1))
        let written = try Self.ours(from: "\(temporary.path)/old.sqlite", to: "\(temporary.path)/new.sqlite", at: "\(temporary.path)/ours.bin")
        #expect(written.records > 300, "\(random.replay)")
        try FileManager.default.copyItem(atPath: "\(temporary.path)/old.sqlite", toPath: "\(temporary.path)/copy.sqlite")
        try SnapshotChangeset.apply(try Data(contentsOf: URL(fileURLWithPath: "\(temporary.path)/ours.bin")), to: "\(temporary.path)/copy.sqlite")
        let copy = try SnapshotQuery("\(temporary.path)/copy.sqlite")
        let new = try SnapshotQuery("\(temporary.path)/new.sqlite")
        for table in ["plain", "keyed", "rowids", "gone"] {
            let sql = "SELECT * FROM \(table) ORDER BY 1, 2"
            let (applied, expected) = (copy.rows(sql), new.rows(sql))
            #expect(applied == expected, "\(table): \(applied.count) rows, \(expected.count) expected, first different \(zip(applied, expected).first { $0.0 != $0.1 }.map { "\($0)" } ?? "none"); \(random.replay)")
        }
    }

    /// A table merged in two halves (the lower into the changeset, the
    /// upper into a part appended after it) is the one merge's changeset
    /// byte for byte, wherever the boundary falls: before every key, after
    /// every key, on a key, between keys; and a half with no change leaves
    /// the table's header to the other.
    @Test func halvesAppendedAreTheOneMergeByteForByte() throws {
        let temporary = TemporaryDirectory()
        var random = TestRandom(defaultSeed: 44)
        func rows(_ shift: Int) -> String {
            var plain: [String] = []
            for index in 0..<400 where random.next() % 6 != 0 {
                let amount = random.next() % 3 == 0 ? "\(index + shift)" : "\(index)"
                plain.append("('C\(String(format: "%04d", index))', \(amount), NULL, NULL, 'n')")
            }
            return "INSERT INTO plain VALUES \(plain.joined(separator: ", "));"
        }
        let (old, new, newUpperOnly) = ("\(temporary.path)/old.sqlite", "\(temporary.path)/new.sqlite", "\(temporary.path)/upper.sqlite")
        try Self.database(old, rows(0))
        try Self.database(new, rows(1))
        // Yesterday's rows with changes from C0200 on only: the lower half finds none.
        try FileManager.default.copyItem(atPath: old, toPath: newUpperOnly)
        let upperOnly = try SQLiteDatabase(path: newUpperOnly)
        try upperOnly.execute("UPDATE plain SET amount = amount + 1 WHERE code >= 'C0200' AND amount % 3 = 0")
        try upperOnly.close()
        for (newer, boundaries) in [(new, ["A", "C0000", "C0133", "C0133x", "C0399", "D"]), (newUpperOnly, ["C0200", "C0300"])] {
            let whole = "\(temporary.path)/whole.bin"
            unlink(whole)
            let expected = try Self.ours(from: old, to: newer, at: whole)
            let wholeBytes = try Data(contentsOf: URL(fileURLWithPath: whole))
            #expect(expected.records > 50, "\(random.replay)")
            for boundary in boundaries {
                let path = "\(temporary.path)/halves-\(boundary).bin"
                let database = try SQLiteDatabase(path: newer, readOnly: true)
                try database.execute("ATTACH DATABASE '\(old)' AS old")
                let writer = try ChangesetWriter(path: path)
                let part = try ChangesetWriter(partIn: temporary.path)
                try SnapshotMerge.writeTable("plain", range: .from(boundary), in: database, to: part)
                try SnapshotMerge.writeTable("plain", range: .below(boundary), in: database, to: writer)
                try writer.append(part)
                for table in ["keyed", "rowids", "gone"] { try SnapshotMerge.writeTable(table, in: database, to: writer) }
                let written = try writer.finish()
                try database.close()
                let halves = try Data(contentsOf: URL(fileURLWithPath: path))
                #expect(halves == wholeBytes, "boundary \(boundary): \(halves.count) bytes against \(wholeBytes.count)")
                #expect(written == expected, "boundary \(boundary)")
            }
        }
        // The part left no name behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix(".changeset-part") } == [])
    }
}
