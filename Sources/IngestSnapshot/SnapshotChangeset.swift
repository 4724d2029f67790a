import CSQLite
import Foundation

/// A changeset in SQLite's session format that turns one published
/// snapshot into another: what an offline client downloads instead of the
/// whole file. Made by `sqlite3session_diff`, table by table, between the
/// newer file (opened read-only) and the older one attached beside it; the
/// search index's shadow tables travel as rows like any other, so a client
/// that applies the changeset searches what the newer snapshot searches.
/// SQLite's own `sqlite_stat1` (planner statistics, no primary key) does not
/// travel: a client may run ANALYZE itself.
public enum SnapshotChangeset {
    /// A table the session extension cannot diff: every snapshot table must have a primary key.
    public struct TableWithoutKey: Error, CustomStringConvertible {
        public var table: String
        public var description: String { "table \(table) has no primary key: a changeset cannot carry it" }
    }

    /// The changeset from `old` to `new`, both snapshot files.
    public static func make(from old: String, to new: String) throws -> Data {
        let database = try SQLiteDatabase(path: new, readOnly: true)
        defer { try? database.close() } // read-only: nothing is lost if closing fails
        try database.execute("ATTACH DATABASE '\(old.replacingOccurrences(of: "'", with: "''"))' AS old")
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
        var size: Int32 = 0
        var bytes: UnsafeMutableRawPointer?
        code = sqlite3session_changeset(session, &size, &bytes)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, message: "sqlite3session_changeset failed") }
        defer { sqlite3_free(bytes) }
        return bytes.map { Data(bytes: $0, count: Int(size)) } ?? Data()
    }

    /// Applies `changeset` to the snapshot file at `path` (a copy of the version it was made from), in one transaction.
    public static func apply(_ changeset: Data, to path: String) throws {
        let database = try SQLiteDatabase(path: path)
        try database.execute("BEGIN")
        var copy = changeset
        let code = copy.withUnsafeMutableBytes { buffer in
            ingest_changeset_apply(database.handle, Int32(buffer.count), buffer.baseAddress)
        }
        guard code == SQLITE_OK else {
            try? database.execute("ROLLBACK") // the apply failed already; that error is the one to report
            throw SQLiteError(code: code, message: "the changeset does not apply to \(path)")
        }
        try database.execute("COMMIT")
        try database.close()
    }

    /// Every ordinary table of the newer snapshot, and the search index's
    /// shadow tables; not the FTS5 table itself (virtual) nor SQLite's own.
    static func changedTables(in database: SQLiteDatabase) throws -> [String] {
        let tables = try database.strings("""
            SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
              AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name
            """)
        for table in tables {
            let keyed = try database.scalarInt("SELECT count(*) FROM pragma_table_info('\(table)') WHERE pk > 0") ?? 0
            if keyed == 0 { throw TableWithoutKey(table: table) }
        }
        return tables
    }
}
