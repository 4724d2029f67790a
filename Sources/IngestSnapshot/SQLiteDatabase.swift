import CSQLite
import Foundation

/// One SQLite connection, owned: opened in `init`, closed in `deinit`.
/// Statements run in loops are prepared once through `cachedStatement`.
public final class SQLiteDatabase {
    public let path: String
    private(set) var handle: OpaquePointer?
    private var statementCache: [String: SQLiteStatement] = [:]
    /// The name `freeze(table:)`'s authorizer compares with, alive as long as the connection.
    private var frozenTable: UnsafeMutablePointer<CChar>?
    /// The statements this code prepared and has not released (SQLite's own
    /// list also holds those of virtual tables such as FTS5, which close with it).
    let openStatements = OpenStatements()

    /// Debian's libsqlite3 takes a global mutex for memory statistics on every
    /// allocation; turning them off lets two threads use two databases at
    /// full speed. It must happen before the first connection opens.
    private static let configured: Void = { _ = ingest_sqlite_disable_memstatus() }()

    public init(path: String, readOnly: Bool = false) throws(SQLiteError) {
        _ = Self.configured
        self.path = path
        var connection: OpaquePointer?
        // URI file names (`file:…?mode=ro`) let a writer attach a published file read-only.
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_URI
        let code = sqlite3_open_v2(path, &connection, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK else {
            let error = SQLiteError(code: code, connection: connection, sql: nil)
            sqlite3_close_v2(connection)
            throw error
        }
        handle = connection
        sqlite3_extended_result_codes(connection, 1)
        // `ingest_digest(…)`, the aggregate of the check before publishing (`PublishCheck`), and
        // `ingest_changeset_values(…)`, the night's changeset merge's row encoding (`SnapshotMerge`).
        for register in [ingest_sqlite_register_digest, ingest_sqlite_register_changeset_values] {
            let registered = register(connection)
            guard registered == SQLITE_OK else { throw SQLiteError(code: registered, connection: connection, sql: nil) }
        }
    }

    /// A connection nobody closed is closed here, quietly: there is no one to
    /// tell. Code that must know the connection is gone (the writer, before
    /// the file is published) calls `close()`.
    deinit {
        statementCache.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        free(frozenTable)
    }

    /// A `file:` URI for `path` with query parameters (`mode=ro`, `immutable=1`).
    public static func uri(_ path: String, _ parameters: String) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~/"))
        return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?" + parameters
    }

    /// From now on this connection refuses to insert into, update or delete
    /// from `table` (SQLITE_AUTH when the statement is prepared or next run):
    /// what another connection read of it stays true of the file.
    public func freeze(table: String) throws(SQLiteError) {
        free(frozenTable)
        frozenTable = strdup(table)
        let code = ingest_sqlite_freeze_table(handle, frozenTable)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle, sql: nil) }
    }

    /// Finalizes the cached statements and closes the connection; safe to
    /// call twice. A statement still alive elsewhere is a leak: it would keep
    /// the connection (and a writer's exclusive lock) open as a zombie until
    /// it is released, so `close` throws `.busy` naming its SQL. The
    /// connection closes anyway once the last statement goes.
    public func close() throws(SQLiteError) {
        statementCache.removeAll()
        guard let handle else { return }
        let leaked = openStatements.sql
        sqlite3_close_v2(handle)
        self.handle = nil
        if !leaked.isEmpty {
            throw SQLiteError(.busy, message: "closed with \(leaked.count) statement(s) still open: \(leaked.joined(separator: "; "))")
        }
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(errorMessage)
            throw SQLiteError(code: code, message: message, sql: sql)
        }
    }

    /// `body` inside one transaction, as GRDB's `inTransaction`: committed
    /// when it returns, rolled back when it throws. The body's error is the
    /// one reported; a rollback that fails too changes nothing a caller can
    /// act on (the connection or the file is gone already), so its own error
    /// is not.
    public func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        let result: T
        do {
            result = try body()
        } catch {
            try? execute("ROLLBACK") // the body's error is the one to report (above)
            throw error
        }
        try execute("COMMIT")
        return result
    }

    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(database: self, sql: sql)
    }

    /// The statement for `sql`, prepared on first use and reused afterwards.
    public func cachedStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        statementCache[sql] = statement
        return statement
    }

    /// Whether `table` has `column`: how a reader tells one schema version from the next.
    public func hasColumn(_ column: String, in table: String) throws(SQLiteError) -> Bool {
        try scalarInt("SELECT count(*) FROM pragma_table_info('\(table)') WHERE name = '\(column)'") == 1
    }

    /// The first column of the first row of a query, as an integer.
    public func scalarInt(_ sql: String) throws(SQLiteError) -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.isNull(0) ? nil : statement.int64(0)
    }

    /// All rows of a one-column text query.
    public func strings(_ sql: String, _ values: SQLiteStatement.Value...) throws(SQLiteError) -> [String] {
        let statement = try prepare(sql)
        try statement.bind(values)
        var result: [String] = []
        while try statement.step() { result.append(statement.string(0) ?? "") }
        return result
    }

    /// Every row of a query as text (NULL as nil), each value bound in turn: for small answers read whole.
    public func rows(_ sql: String, _ values: SQLiteStatement.Value...) throws(SQLiteError) -> [[String?]] {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        var result: [[String?]] = []
        while try statement.step() { result.append((0..<statement.columnCount).map { statement.string($0) }) }
        return result
    }

    /// `PRAGMA integrity_check`: nil when the database is sound, else SQLite's findings.
    public func integrityProblems() throws(SQLiteError) -> String? {
        let lines = try strings("PRAGMA integrity_check")
        return lines == ["ok"] ? nil : lines.joined(separator: "; ")
    }
}

/// The SQL of the statements a connection's code holds, by identity: shared
/// by the connection and its statements, so that a statement outliving its
/// connection can still sign off.
final class OpenStatements {
    private var open: [ObjectIdentifier: String] = [:]
    func add(_ statement: SQLiteStatement) { open[ObjectIdentifier(statement)] = statement.sql }
    func remove(_ statement: SQLiteStatement) { open[ObjectIdentifier(statement)] = nil }
    var sql: [String] { open.values.sorted() }
}
