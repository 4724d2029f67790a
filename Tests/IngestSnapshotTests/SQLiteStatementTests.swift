import CSQLite
import Foundation
import IngestTestSupport
import Testing
@testable import IngestSnapshot

/// `SQLiteStatement`: checked binds, copied text, the statement cache.
@Suite struct SQLiteStatementTests {
    @Test func everyBindIsChecked() throws {
        let temporary = TemporaryDirectory()
        let database = try scratchDatabase(temporary)
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
        let database = try scratchDatabase(temporary)
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
}
