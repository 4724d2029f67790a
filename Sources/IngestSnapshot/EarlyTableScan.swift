import Foundation
import Synchronization

/// The publish check's scan of one table, run while the writer still builds
/// the indexes. The index build leaves one core idle for seconds (CREATE
/// INDEX is one thread, its sort's helper a fifth of another), and the
/// scan of `offers` is the check's longest (about 2 s of 5 million rows):
/// scanned here, it is off the check's critical path (docs/PERFORMANCE.md:
/// the two phases 0.6–1.0 s shorter a night; the index build itself slows
/// by part of that, the two sharing more than the cores).
///
/// Sound only because the scanned pages no longer change. The writer has
/// committed the load and refuses to write the table (`SnapshotWriter.commitLoad`,
/// an authorizer); the index build only adds pages. The connection opens
/// the file `immutable=1`: it takes no lock (the writer holds its exclusive
/// one) and reads each page once into its own cache. Page 1 and the schema
/// are read, inside a read transaction kept open, before `init` returns, so
/// before the writer writes anything more. What the table holds is then
/// certified as of the load; the check still compares every index of the
/// finished file with this scan, and runs `quick_check` on it.
public final class EarlyTableScan: Sendable {
    public let table: String
    /// The query, which the check compares with its own for the finished file.
    public let sql: String
    private let done = DispatchSemaphore(value: 0)
    /// Written once by the scanning thread before it signals `done`.
    private let outcome = Mutex<Result<[String], SQLiteError>>(.failure(SQLiteError(.misuse, message: "not scanned")))

    /// The connection and its statement, handed to the scanning thread,
    /// which alone uses them from then on.
    private final class Handoff: @unchecked Sendable {
        private let database: SQLiteDatabase
        private var statement: SQLiteStatement?

        init(database: SQLiteDatabase, statement: SQLiteStatement) {
            self.database = database
            self.statement = statement
        }

        /// The scan's digests; the connection closed
        /// before it returns, the statement released first (a live one would
        /// keep it open).
        func scanAndClose() -> Result<[String], SQLiteError> {
            let row = Result { () throws(SQLiteError) -> [String] in
                guard let statement else { return [] }
                return try PublishCheck.tableDigests(statement)
            }
            statement = nil
            let closed = Result { () throws(SQLiteError) in
                try database.execute("COMMIT")
                try database.close()
            }
            return row.flatMap { found in closed.map { found } }
        }
    }

    /// Starts scanning `table` of the file at `path` with the query the
    /// publish check will run once `schema`'s indexes exist. Call it after
    /// `commitLoad()`, before `finish()`.
    public init(path: String, table: String, schema: SnapshotSchema, writerDigest: Bool) throws(SQLiteError) {
        self.table = table
        guard let sql = try PublishCheck.tableScanSQL(of: table, schema: schema, writerDigest: writerDigest) else {
            throw SQLiteError(.misuse, message: "the schema has no table \(table)")
        }
        self.sql = sql
        let database = try SQLiteDatabase(path: SQLiteDatabase.uri(path, "immutable=1"), readOnly: true)
        try database.execute("BEGIN")
        _ = try database.strings("SELECT count(*) FROM sqlite_master") // the read transaction starts: page 1 and the schema read
        let handoff = Handoff(database: database, statement: try database.prepare(sql))
        let thread = Thread { [self] in
            let row = handoff.scanAndClose()
            // Told done only once the connection is closed: the publisher unlinks the file next.
            outcome.withLock { $0 = row }
            done.signal()
        }
        thread.name = "ingest-early-scan"
        thread.start()
    }

    /// Blocks until the scan is over and its connection closed; may be asked again.
    public func wait() -> Result<[String], SQLiteError> {
        done.wait()
        done.signal()
        return outcome.withLock { $0 }
    }
}
