import CSQLite
import Foundation
import IngestTestSupport
import Testing
@testable import IngestSnapshot

/// A database in `temporary` with one table, `t(id, name NOT NULL, price)`.
func scratchDatabase(_ temporary: TemporaryDirectory) throws -> SQLiteDatabase {
    let database = try SQLiteDatabase(path: "\(temporary.path)/t.sqlite")
    try database.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL)")
    return database
}

/// `SQLiteDatabase`: opening, and a close that reports what leaked.
@Suite struct SQLiteDatabaseTests {
    @Test func openingWhatCannotBeOpenedIsCantOpen() {
        #expect {
            try SQLiteDatabase(path: "/nonexistent-folder/x.sqlite", readOnly: true)
        } throws: { error in
            let error = error as! SQLiteError
            return error.primary == .cantOpen && error.isCannotWrite && !error.isDiskFull
        }
    }

    @Test func closeReportsALeakedStatementAndClosesAnyway() throws {
        let temporary = TemporaryDirectory()
        let database = try scratchDatabase(temporary)
        _ = try database.cachedStatement("SELECT count(*) FROM t") // cached: the database releases it
        var leaked: SQLiteStatement? = try database.prepare("SELECT name FROM t")
        #expect {
            try database.close()
        } throws: { error in
            let error = error as! SQLiteError
            return error.primary == .busy && error.message == "closed with 1 statement(s) still open: SELECT name FROM t"
        }
        leaked = nil
        try database.close() // twice is fine
        _ = leaked
        let clean = try SQLiteDatabase(path: "\(temporary.path)/t.sqlite")
        #expect(try clean.strings("SELECT name FROM sqlite_master") == ["t"])
        try clean.close()
    }
}
