import CSQLite

/// A prepared statement, owned: finalized in `deinit`. Binding is by 1-based
/// index; text is copied by SQLite (`SQLITE_TRANSIENT`) so callers need not
/// keep buffers alive.
public final class SQLiteStatement {
    public let sql: String
    let handle: OpaquePointer
    private unowned let database: SQLiteDatabase
    private let registry: OpenStatements

    init(database: SQLiteDatabase, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(code: code, connection: database.handle, sql: sql)
        }
        self.sql = sql
        self.handle = statement
        self.database = database
        registry = database.openStatements
        registry.add(self)
    }

    deinit {
        registry.remove(self)
        sqlite3_finalize(handle)
    }

    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // Every bind is checked: a wrong index (SQLITE_RANGE) or a misuse must
    // fail where it happens, not as a NULL in the snapshot.

    public func bind(_ value: Int64?, at index: Int32) throws(SQLiteError) {
        try check(value.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index), binding: index)
    }

    public func bind(_ value: Int?, at index: Int32) throws(SQLiteError) {
        try bind(value.map(Int64.init), at: index)
    }

    public func bind(_ value: Double?, at index: Int32) throws(SQLiteError) {
        try check(value.map { sqlite3_bind_double(handle, index, $0) } ?? sqlite3_bind_null(handle, index), binding: index)
    }

    /// Text is copied by SQLite (SQLITE_TRANSIENT): the Swift string may go.
    public func bind(_ value: String?, at index: Int32) throws(SQLiteError) {
        guard var value else { return try check(sqlite3_bind_null(handle, index), binding: index) }
        let code = value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                // An empty string's buffer may have no address: bind a zero-length text from a literal.
                guard let base = chars.baseAddress else { return sqlite3_bind_text(handle, index, "", 0, ingest_sqlite_transient()) }
                return sqlite3_bind_text(handle, index, base, Int32(chars.count), ingest_sqlite_transient())
            }
        }
        try check(code, binding: index)
    }

    /// Binds text SQLite reads in place (SQLITE_STATIC), for the offers'
    /// hot loop: the caller keeps the bytes alive and unchanged until the
    /// statement has stepped, and binds again before the next step.
    public func bindStatic(_ bytes: UnsafeRawPointer, count: Int, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_text(handle, index, bytes.assumingMemoryBound(to: CChar.self), Int32(count), nil), binding: index)
    }

    private func check(_ code: Int32, binding index: Int32) throws(SQLiteError) {
        guard code != SQLITE_OK else { return }
        var error = SQLiteError(code: code, connection: database.handle, sql: sql)
        error.message = "binding parameter \(index): \(error.message)"
        throw error
    }

    /// A value to bind, for statements run with `run(_:)`.
    public enum Value {
        case int(Int64?)
        case text(String?)
        case real(Double?)
    }

    /// Binds `values` to parameters 1, 2, … and runs the statement. For the
    /// reference tables; the offers loop binds by hand to skip the array.
    public func run(_ values: Value...) throws(SQLiteError) {
        try bind(values)
        try run()
    }

    /// Binds `values` to parameters 1, 2, ….
    public func bind(_ values: [Value]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .int(let number): try bind(number, at: index)
            case .text(let text): try bind(text, at: index)
            case .real(let real): try bind(real, at: index)
            }
        }
    }

    /// Steps once: true when a row is available, false when done.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(code: code, connection: database.handle, sql: sql)
        }
    }

    /// Runs a statement that returns no rows, then resets it for reuse.
    public func run() throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        try step()
    }

    public var columnCount: Int32 { sqlite3_column_count(handle) }
    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    /// A text column's bytes, valid until the next step, reset or finalize:
    /// for comparing keys without making a `String` of each.
    public func textBytes(_ column: Int32) -> UnsafeRawBufferPointer {
        // The text first, then its length: SQLite's documented order.
        let text = sqlite3_column_text(handle, column)
        return UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
    }

    public func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: text)
    }
}
