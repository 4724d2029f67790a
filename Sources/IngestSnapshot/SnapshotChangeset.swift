import CSQLite
import Foundation

/// A changeset in SQLite's session format that turns one published
/// snapshot into another: what an offline client downloads instead of the
/// whole file. Made by `sqlite3session_diff`, table by table, between the
/// newer file (opened read-only) and the older one attached beside it.
/// The search indexes do not travel: they are external-content FTS5 tables
/// keyed by `items`' rowid, which a changeset does not carry (a new item
/// gets the next free rowid on the client), so `apply` rebuilds them from
/// `items` (10,000 items: tens of milliseconds). A client applying the
/// changeset with SQLite's own tools does the same:
/// `INSERT INTO items_search(items_search) VALUES ('rebuild')`.
/// SQLite's own `sqlite_stat1` (planner statistics, no primary key) does not
/// travel: a client may run ANALYZE itself.
public enum SnapshotChangeset {
    /// A table the session extension cannot diff: every snapshot table must have a primary key.
    public struct TableWithoutKey: Error, CustomStringConvertible {
        public var table: String
        public var description: String { "table \(table) has no primary key: a changeset cannot carry it" }
    }

    /// Two snapshots of different schemas (versions, or tables declared
    /// differently under one version number, as when a reference kind is
    /// added): no changeset turns one into the other.
    public struct SchemaMismatch: Error, CustomStringConvertible {
        public var old: Int64
        public var new: Int64
        /// Which tables differ, when the version numbers alone do not tell.
        public var tables: String?
        public var description: String {
            let what = old != new ? "schema versions \(old) and \(new)" : "schema version \(new) but different tables (\(tables ?? ""))"
            return "the snapshots have \(what): no changeset turns one into the other; a client on the older one downloads the whole snapshot"
        }
    }

    /// At most this much of each file is memory-mapped while diffing;
    /// SQLite lowers it to its own compile-time limit (2 GB in Debian's
    /// build), beyond which it reads as before.
    static let mappedBytes = 1 << 32

    /// The changeset from `old` to `new`, both snapshot files.
    public static func make(from old: String, to new: String) throws -> Data {
        let database = try SQLiteDatabase(path: new, readOnly: true)
        defer { try? database.close() } // read-only: nothing is lost if closing fails
        try database.execute("ATTACH DATABASE '\(old.replacingOccurrences(of: "'", with: "''"))' AS old")
        // The diff looks up every row of one file in the other by key. Through
        // SQLite's default 2 MB page cache that was a read call per page; the
        // two files mapped, it is memory access. Measured in `make bench-serve`.
        try database.execute("PRAGMA main.mmap_size = \(mappedBytes); PRAGMA old.mmap_size = \(mappedBytes)")
        let versions = (try database.scalarInt("PRAGMA old.user_version") ?? 0, try database.scalarInt("PRAGMA main.user_version") ?? 0)
        guard versions.0 == versions.1 else { throw SchemaMismatch(old: versions.0, new: versions.1) }
        if let difference = SnapshotTableList.difference(old: try SnapshotTableList.tables(in: database, schema: "old"),
                                                         new: try SnapshotTableList.tables(in: database)) {
            throw SchemaMismatch(old: versions.0, new: versions.1, tables: difference)
        }
        let tables = try changedTables(in: database)
        var session: OpaquePointer?
        var code = sqlite3session_create(database.handle, "main", &session)
        guard code == SQLITE_OK, let session else { throw SQLiteError(code: code, message: "sqlite3session_create failed") }
        defer { sqlite3session_delete(session) }
        for table in tables {
            code = sqlite3session_attach(session, table)
            guard code == SQLITE_OK else { throw SQLiteError(code: code, message: "sqlite3session_attach(\(table)) failed") }
            var message: UnsafeMutablePointer<CChar>?
            code = sqlite3session_diff(session, "old", table, &message)
            let text = message.map { String(cString: $0) } ?? ""
            sqlite3_free(message)
            guard code == SQLITE_OK else { throw SQLiteError(code: code, message: "diff of \(table): \(text)") }
        }
        return try output("sqlite3session_changeset") { sqlite3session_changeset(session, &$0, &$1) }
    }

    /// A changeset SQLite allocated (`produce` sets its size and bytes), copied out and freed.
    static func output(_ function: String, _ produce: (inout Int32, inout UnsafeMutableRawPointer?) -> Int32) throws -> Data {
        var size: Int32 = 0
        var bytes: UnsafeMutableRawPointer?
        let code = produce(&size, &bytes)
        defer { sqlite3_free(bytes) }
        guard code == SQLITE_OK else { throw SQLiteError(code: code, message: "\(function) failed") }
        return bytes.map { Data(bytes: $0, count: Int(size)) } ?? Data()
    }

    /// Applies `changeset` to the snapshot file at `path` (a copy of the version it was made from), in one transaction.
    /// The applied copy does not hold what the newer version's manifest says it holds.
    public struct ContentMismatch: Error, CustomStringConvertible {
        public var differences: [String]
        public var description: String { differences.joined(separator: "; ") }
    }

    /// `expected`: the newer version's content digests (its manifest's);
    /// the copy must hold them before the transaction commits, or it is
    /// rolled back: a changeset altered with its digest passes that digest
    /// and still applies as wrong data.
    public static func apply(_ changeset: Data, to path: String, expected: [String: String]? = nil) throws {
        let database = try SQLiteDatabase(path: path)
        try database.inTransaction {
            var copy = changeset
            let code = copy.withUnsafeMutableBytes { buffer in
                ingest_changeset_apply(database.handle, Int32(buffer.count), buffer.baseAddress)
            }
            guard code == SQLITE_OK else { throw SQLiteError(code: code, message: "the changeset does not apply to \(path)") }
            if let expected {
                let found = try PublishCheck.contentDigests(in: database)
                let differences = Set(expected.keys).union(found.keys).sorted().compactMap { table -> String? in
                    expected[table] == found[table] ? nil
                        : "\(table) holds \(found[table] ?? "no table") (rows:digest), the newer version \(expected[table] ?? "no table")"
                }
                guard differences.isEmpty else { throw ContentMismatch(differences: differences) }
            }
            for index in try searchIndexes(in: database) { try database.execute("INSERT INTO \(index)(\(index)) VALUES ('rebuild')") }
        }
        try database.close()
    }

    /// Every ordinary table of the newer snapshot: not the search indexes
    /// (virtual) nor their shadow tables, nor SQLite's own.
    public static func changedTables(in database: SQLiteDatabase) throws -> [String] {
        let tables = try SnapshotTableList.tables(in: database).map(\.name)
        for table in tables {
            let keyed = try database.scalarInt("SELECT count(*) FROM pragma_table_info('\(table)') WHERE pk > 0") ?? 0
            if keyed == 0 { throw TableWithoutKey(table: table) }
        }
        return tables
    }

    /// The file's FTS5 tables: in a snapshot, external-content ones over `items`.
    static func searchIndexes(in database: SQLiteDatabase) throws -> [String] {
        try database.strings("""
            SELECT name FROM main.sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%' ORDER BY name
            """)
    }
}
