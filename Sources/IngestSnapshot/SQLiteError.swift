import CSQLite
import Foundation

/// An SQLite failure with everything needed to act on it: the result code,
/// SQLite's own message, the statement that failed, and the operating
/// system's errno behind an I/O error.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// An SQLite result code, named, to match on (`error.primary == .readOnly`).
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let ok = Code(rawValue: SQLITE_OK)
        public static let error = Code(rawValue: SQLITE_ERROR)
        public static let busy = Code(rawValue: SQLITE_BUSY)
        public static let readOnly = Code(rawValue: SQLITE_READONLY)
        public static let ioError = Code(rawValue: SQLITE_IOERR)
        public static let corrupt = Code(rawValue: SQLITE_CORRUPT)
        public static let full = Code(rawValue: SQLITE_FULL)
        public static let cantOpen = Code(rawValue: SQLITE_CANTOPEN)
        public static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
        public static let misuse = Code(rawValue: SQLITE_MISUSE)
        public static let range = Code(rawValue: SQLITE_RANGE)
        public static let notADatabase = Code(rawValue: SQLITE_NOTADB)
        /// Refused by an authorizer (`SQLiteDatabase.freeze(table:)`).
        public static let notAuthorized = Code(rawValue: SQLITE_AUTH)
    }

    /// The extended result code, as SQLite returned it.
    public let code: Int32
    public var message: String
    public let sql: String?
    /// errno of the system call that failed, for an I/O error (0 when none).
    public let systemErrno: Int32

    public init(_ code: Code, message: String, sql: String? = nil) {
        self.init(code: code.rawValue, message: message, sql: sql)
    }

    public init(code: Int32, message: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.code = code
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    init(code: Int32, connection: OpaquePointer?, sql: String?) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        self.init(code: code, message: message, sql: sql, systemErrno: connection.map { sqlite3_system_errno($0) } ?? 0)
    }

    /// The primary result code (`.full` for every disk-full variant).
    public var primary: Code { Code(rawValue: code & 0xFF) }

    /// True when the disk or quota is full: the operator frees space, nothing
    /// is wrong with the data. SQLite says SQLITE_FULL when it sees it, and
    /// an I/O error with the system's ENOSPC or EDQUOT when a write is refused.
    public var isDiskFull: Bool {
        primary == .full || (primary == .ioError && (systemErrno == ENOSPC || systemErrno == EDQUOT))
    }

    /// The file or its folder cannot be written or opened (permissions, a read-only mount).
    public var isCannotWrite: Bool { primary == .readOnly || primary == .cantOpen }

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }
}
