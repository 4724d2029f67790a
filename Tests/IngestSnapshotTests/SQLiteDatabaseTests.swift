import CSQLite
import Foundation
import IngestTestSupport
import Testing
@testable import IngestSnapshot

/// The SQLite layer on its own: named result codes, checked binds, the
/// statement cache, and a close that reports what leaked.
@Suite struct SQLiteDatabaseTests {
    private func database(_ temporary: TemporaryDirectory) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: "\(temporary.path)/t.sqlite")
        try database.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL)")
        return database
    }

    @Test func openingWhatCannotBeOpenedIsCantOpen() {
        #expect {
            try SQLiteDatabase(path: "/nonexistent-folder/x.sqlite", readOnly: true)
        } throws: { error in
            let error = error as! SQLiteError
            return error.primary == .cantOpen && error.isCannotWrite && !error.isDiskFull
        }
    }

    @Test func errorsNameTheirCodeAndStatement() throws {
        let temporary = TemporaryDirectory()
        let database = try database(temporary)
        #expect {
            try database.execute("INSERT INTO nowhere VALUES (1)")
        } throws: { error in
            let error = error as! SQLiteError
            return error.primary == .error && error.description.contains("no such table: nowhere")
                && error.description.hasSuffix("while running: INSERT INTO nowhere VALUES (1)")
        }
        let insert = try database.prepare("INSERT INTO t(id, name) VALUES (?, ?)")
        try insert.run(.int(1), .text("a"))
        #expect { try insert.run(.int(1), .text("b")) } throws: { ($0 as! SQLiteError).primary == .constraint }
    }

    @Test func everyBindIsChecked() throws {
        let temporary = TemporaryDirectory()
        let database = try database(temporary)
        let insert = try database.prepare("INSERT INTO t(id, name) VALUES (?, ?)")
        #expect {
            try insert.bind("x", at: 3)
        } throws: { error in
            let error = error as! SQLiteError
            return error.primary == .range && error.message.hasPrefix("binding parameter 3: ")
        }
        #expect { try insert.bind(Int64(1), at: 0) } throws: { ($0 as! SQLiteError).primary == .range }
    }

    @Test func textIsCopiedAndEmptyTextIsNotNull() throws {
        let temporary = TemporaryDirectory()
        let database = try database(temporary)
        let insert = try database.cachedStatement("INSERT INTO t(id, name, price) VALUES (?, ?, ?)")
        var name: String? = String(repeating: "Õ", count: 40)
        try insert.bind(Int64(1), at: 1)
        try insert.bind(name, at: 2)
        try insert.bind(1.5, at: 3)
        name = nil // the bound text is SQLite's copy
        try insert.run()
        #expect(try database.cachedStatement("INSERT INTO t(id, name, price) VALUES (?, ?, ?)") === insert, "one statement per SQL")
        try insert.run(.int(2), .text(""), .real(nil))
        #expect(try database.strings("SELECT quote(name) || '/' || quote(price) FROM t ORDER BY id")
                    == ["'\(String(repeating: "Õ", count: 40))'/1.5", "''/NULL"])
    }

    @Test func closeReportsALeakedStatementAndClosesAnyway() throws {
        let temporary = TemporaryDirectory()
        let database = try database(temporary)
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

    /// A full disk is told apart from other I/O errors by the system's errno, not by SQLite's wording.
    @Test func aFullDiskIsFullOrAWriteRefusedWithENOSPC() {
        #expect(SQLiteError(code: SQLITE_FULL, message: "database or disk is full").isDiskFull)
        #expect(SQLiteError(code: SQLITE_IOERR | (3 << 8), message: "disk I/O error", systemErrno: ENOSPC).isDiskFull)
        #expect(SQLiteError(code: SQLITE_IOERR | (3 << 8), message: "disk I/O error", systemErrno: EDQUOT).isDiskFull)
        #expect(!SQLiteError(code: SQLITE_IOERR | (3 << 8), message: "no space (says the text)", systemErrno: EIO).isDiskFull)
        #expect(SQLiteError(code: SQLITE_READONLY | (3 << 8), message: "read only").isCannotWrite)
    }
}
