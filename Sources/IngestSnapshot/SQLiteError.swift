import CSQLite

/// An SQLite failure with everything needed to act on it: the result code,
/// SQLite's own message, and the statement that failed.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    init(code: Int32, connection: OpaquePointer?, sql: String?) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        self.init(code: code, message: message, sql: sql)
    }

    /// The primary result code (`SQLITE_FULL` for every disk-full variant).
    public var primaryCode: Int32 { code & 0xFF }

    /// True when the disk or quota is full: the operator frees space, nothing is wrong with the data.
    public var isDiskFull: Bool { primaryCode == SQLITE_FULL || (primaryCode == SQLITE_IOERR && message.contains("space")) }

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }
}
