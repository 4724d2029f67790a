import CSQLite
import Foundation
import IngestTestSupport
import Testing
@testable import IngestSnapshot

/// `SQLiteError`: named result codes, the failing statement, a full disk told by errno.
@Suite struct SQLiteErrorTests {
    @Test func errorsNameTheirCodeAndStatement() throws {
        let temporary = TemporaryDirectory()
        let database = try scratchDatabase(temporary)
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

    /// A full disk is told apart from other I/O errors by the system's errno, not by SQLite's wording.
    @Test func aFullDiskIsFullOrAWriteRefusedWithENOSPC() {
        #expect(SQLiteError(code: SQLITE_FULL, message: "database or disk is full").isDiskFull)
        #expect(SQLiteError(code: SQLITE_IOERR | (3 << 8), message: "disk I/O error", systemErrno: ENOSPC).isDiskFull)
        #expect(SQLiteError(code: SQLITE_IOERR | (3 << 8), message: "disk I/O error", systemErrno: EDQUOT).isDiskFull)
        #expect(!SQLiteError(code: SQLITE_IOERR | (3 << 8), message: "no space (says the text)", systemErrno: EIO).isDiskFull)
        #expect(SQLiteError(code: SQLITE_READONLY | (3 << 8), message: "read only").isCannotWrite)
    }
}
