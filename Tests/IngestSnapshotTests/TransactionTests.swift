import IngestSnapshot
import IngestTestSupport
import Testing

/// Issue 47, item 7: one way to run a transaction (`inTransaction`, as
/// GRDB's), in place of BEGIN, COMMIT and ROLLBACK written out three times.
@Suite struct TransactionTests {
    private struct Refused: Error, Equatable {}

    @Test func aBodyThatReturnsCommitsAndOneThatThrowsLeavesNothingAndItsErrorIsReported() throws {
        let temporary = TemporaryDirectory()
        let database = try SQLiteDatabase(path: "\(temporary.path)/t.sqlite")
        try database.execute("CREATE TABLE t(x INTEGER)")
        let count = try database.inTransaction { () throws -> Int64 in
            try database.execute("INSERT INTO t VALUES (1), (2)")
            return try database.scalarInt("SELECT count(*) FROM t") ?? -1
        }
        #expect(count == 2)
        #expect(throws: Refused()) {
            try database.inTransaction {
                try database.execute("INSERT INTO t VALUES (3)")
                throw Refused()
            }
        }
        #expect(try database.scalarInt("SELECT count(*) FROM t") == 2, "the failed body's row is rolled back")
        // No transaction is left open: another begins.
        try database.inTransaction { try database.execute("INSERT INTO t VALUES (4)") }
        #expect(try database.scalarInt("SELECT sum(x) FROM t") == 7)
        try database.close()
    }
}
