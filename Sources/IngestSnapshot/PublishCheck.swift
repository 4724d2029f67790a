import CSQLite
import Foundation
import IngestCore

/// The check a snapshot passes before it is published (SNAPSHOT.md):
/// `PRAGMA quick_check` (every page, record and b-tree well-formed), every
/// index holding exactly its table's rows, shown by an order-free digest of
/// a scan of the table and of the index (two sequential scans, where
/// `PRAGMA integrity_check` looks up every row in every index), the offers
/// table holding exactly what the writer inserted, and the full-text index
/// passing FTS5's own `integrity-check`.
///
/// `PRAGMA integrity_check` stays available: `snapshots verify --full` and
/// `ingest --full-check` (`SnapshotIntegrityCheck`).
public enum PublishCheck {
    /// What is wrong with the file at `path`, or nil. `offers`: the writer's
    /// digest of what it inserted.
    ///
    /// The check is a list of independent scans (quick_check, each table,
    /// each index), each with a read-only connection of its own, shared out
    /// over `threads`: on the national snapshot one thread takes about 2.5 s,
    /// the last seconds of a run in which the other core would idle.
    public static func problems(path: String, offers expected: TableDigest? = nil, threads: Int = 2) throws(SQLiteError) -> String? {
        try check(path: path, offers: expected, threads: threads).problems
    }

    /// What the check found, and each ordinary table's content digest from the same scans.
    public struct Outcome: Sendable {
        public var problems: String?
        /// `rows:digest` by table (`Manifest.contentDigests`).
        public var contentDigests: [String: String]
        /// The tables whose scan came from an `EarlyTableScan`.
        public var scannedEarly: [String] = []
    }

    /// `scanned`: tables scanned while the file was being finished
    /// (`EarlyTableScan`), waited for once every other scan is done; a scan
    /// whose query is not the one this check would run (another schema, an
    /// index added since) is ignored and the table scanned again.
    public static func check(path: String, offers expected: TableDigest? = nil, threads: Int = 2,
                             scanned: [EarlyTableScan] = []) throws(SQLiteError) -> Outcome {
        let plan = try Plan(path: path, offers: expected)
        var early: [Int: EarlyTableScan] = [:]
        for (index, scan) in plan.scans.enumerated() {
            guard case .table(let table, let sql, _) = scan, let found = scanned.first(where: { $0.table == table && $0.sql == sql }) else {
                continue
            }
            early[index] = found
        }
        let threads = max(1, min(threads, plan.scans.count - early.count))
        let findings = ScanResults(count: plan.scans.count, workers: threads, early: Set(early.keys))
        // This thread works too: `threads - 1` more.
        let workers = (1..<threads).map { _ in
            Thread { findings.work(plan.scans, path: path) }
        }
        for worker in workers { worker.start() }
        findings.work(plan.scans, path: path)
        findings.waitForAll()
        for (index, scan) in early { findings.set(index, scan.wait().map { .strings($0) }) }
        var problems: [String] = []
        var fromTables: [String: [String]] = [:]
        var contentDigests: [String: String] = [:]
        for (scan, outcome) in zip(plan.scans, try findings.outcomes()) {
            switch (scan, outcome) {
            case (.quickCheck, .strings(let quick)):
                if quick != ["ok"] { problems.append("quick_check: " + quick.prefix(5).joined(separator: "; ")) }
            case (.table(let table, _, let written), .strings(let digests)):
                fromTables[table] = digests
                contentDigests[table] = digests.last ?? "" // the scan's last digest: every column's
                if let expected, let written {
                    let found = written < digests.count ? digests[written] : ""
                    if found != expected.text { problems.append("offers holds \(found) (rows:digest), the writer inserted \(expected.text)") }
                }
            case (.index(let table, let position, let name, _), .strings(let digests)):
                let tableDigest = fromTables[table].flatMap { position < $0.count ? $0[position] : nil } ?? ""
                if digests.first != tableDigest {
                    problems.append("index \(name) holds \(digests.first ?? "") (rows:digest), its table \(table) \(tableDigest)")
                }
            case (.index(_, _, let name, _), .unreadable(let message)):
                // An index that cannot be scanned whole (made partial behind the writer's back) cannot hold its table.
                problems.append("index \(name) cannot be read whole: \(message)")
            default:
                preconditionFailure("a scan's outcome does not fit it")
            }
        }
        return Outcome(problems: problems.isEmpty ? nil : problems.joined(separator: "; "), contentDigests: contentDigests,
                       scannedEarly: early.keys.sorted().map { plan.scans[$0] }.compactMap {
                           if case .table(let table, _, _) = $0 { table } else { nil }
                       })
    }

    /// The query the check runs over `table`'s own b-tree once `schema`'s
    /// indexes exist (the writer's digest column included when
    /// `writerDigest`), found from the schema alone, in memory: the same text
    /// the check will find in the finished file.
    public static func tableScanSQL(of table: String, schema: SnapshotSchema, writerDigest: Bool) throws(SQLiteError) -> String? {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute(schema.createSQL)
        try database.execute(schema.indexSQL)
        let sql = try tableScanSQL(of: table, in: database, writerDigest: writerDigest)
        try database.close()
        return sql
    }

    /// The query the check runs over `table` of `database` as it is.
    public static func tableScanSQL(of table: String, in database: SQLiteDatabase, writerDigest: Bool) throws(SQLiteError) -> String? {
        for scan in try Plan(database, offers: writerDigest ? TableDigest() : nil).scans {
            if case .table(table, let sql, _) = scan { return sql }
        }
        return nil
    }

    /// Each ordinary table's content digest, computed as the publish check
    /// computes it: what an applied copy must hold (`snapshots apply`).
    public static func contentDigests(in database: SQLiteDatabase) throws -> [String: String] {
        var digests: [String: String] = [:]
        for table in try SnapshotTableList.tables(in: database).map(\.name) {
            digests[table] = try database.strings("SELECT \(try contentDigestColumn(database, table)) FROM \(quoted(table, "\"")) NOT INDEXED").first ?? ""
        }
        return digests
    }

    /// `ingest_digest` over every column of `table`, in column order.
    static func contentDigestColumn(_ database: SQLiteDatabase, _ table: String) throws(SQLiteError) -> String {
        let columns = try database.strings("SELECT name FROM pragma_table_info(\(quoted(table, "'"))) ORDER BY cid")
        return "ingest_digest(\(columns.map { quoted($0, "\"") }.joined(separator: ", ")))"
    }

    /// The scans, in the order their findings are reported: quick_check,
    /// then each table (one scan of its own b-tree gives the digest each of
    /// its indexes, and the writer, must match) before its indexes.
    private struct Plan {
        enum Scan {
            case quickCheck
            /// `written`: the position of the digest the writer's must equal.
            case table(String, sql: String, written: Int?)
            case index(table: String, position: Int, name: String, sql: String)
        }

        var scans: [Scan] = [.quickCheck]

        init(path: String, offers expected: TableDigest?) throws(SQLiteError) {
            let database = try SQLiteDatabase(path: path, readOnly: true)
            try listScans(database, offers: expected)
            try database.close()
        }

        init(_ database: SQLiteDatabase, offers expected: TableDigest?) throws(SQLiteError) {
            try listScans(database, offers: expected)
        }

        private mutating func listScans(_ database: SQLiteDatabase, offers expected: TableDigest?) throws(SQLiteError) {
            var indexes: [String: [(name: String, columns: [String])]] = [:]
            let list = try database.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
            while try list.step() {
                let (index, table) = (list.string(0) ?? "", list.string(1) ?? "")
                let columns = try database.strings("SELECT name FROM pragma_index_info(\(quoted(index, "'"))) ORDER BY seqno")
                indexes[table, default: []].append((index, columns))
            }
            if expected != nil { indexes["offers", default: []].append(("", PublishCheck.offersColumns)) }
            // Every ordinary table is scanned, for its content digest, indexed or not.
            let ordinary: [String]
            do { ordinary = try SnapshotTableList.tables(in: database).map(\.name) } catch let error as SQLiteError { throw error } catch {
                throw SQLiteError(code: SQLITE_ERROR, message: "\(error)")
            }
            for table in ordinary where indexes[table] == nil { indexes[table] = [] }
            for table in indexes.keys.sorted() {
                let checks = indexes[table]!
                scans.append(.table(table, sql: try tableScanSQL(database, table, digests: checks.map(\.columns)),
                                    written: checks.firstIndex { $0.name.isEmpty }))
                for (position, check) in checks.enumerated() where !check.name.isEmpty {
                    scans.append(.index(table: table, position: position, name: check.name, sql: """
                        SELECT ingest_check_digest(\(check.columns.map { $0.isEmpty ? "''" : quoted($0, "\"") }.joined(separator: ", "))) FROM \(quoted(table, "\"")) INDEXED BY \(quoted(check.name, "\""))
                        """))
                }
            }
        }
    }

    /// The scans' outcomes, filled by whichever thread takes each scan next.
    /// `@unchecked`: every var is guarded by `lock`, a condition the check
    /// waits on, which a `Mutex` cannot be.
    private final class ScanResults: @unchecked Sendable {
        enum Outcome {
            /// The query's first row, every column as text.
            case strings([String])
            /// An index that SQLite refused to scan (SQLITE_ERROR).
            case unreadable(String)
        }

        private let lock = NSCondition()
        private var next = 0
        private var results: [Result<Outcome, SQLiteError>?]
        /// Workers still running, connections open. The check returns only
        /// once every connection is closed: the publisher links and unlinks
        /// the file next, and a connection left open on an unlinked file can
        /// confuse SQLite's per-inode locks for the next file given that inode.
        private var running: Int

        /// Scans another thread runs (`EarlyTableScan`): no worker takes them, and their outcomes come through `set`.
        private let early: Set<Int>

        init(count: Int, workers: Int, early: Set<Int> = []) {
            results = Array(repeating: nil, count: count)
            running = workers
            self.early = early
        }

        func set(_ index: Int, _ outcome: Result<Outcome, SQLiteError>) {
            lock.lock()
            results[index] = outcome
            lock.unlock()
        }

        /// Takes scans until none is left, each on this thread's own connection.
        func work(_ scans: [Plan.Scan], path: String) {
            var database: SQLiteDatabase?
            while let index = claim(scans.count) {
                let result = Result { () throws(SQLiteError) -> Outcome in
                    if database == nil { database = try SQLiteDatabase(path: path, readOnly: true) }
                    return try Self.run(scans[index], on: database!)
                }
                lock.lock()
                results[index] = result
                lock.broadcast()
                lock.unlock()
            }
            // A close that fails leaves nothing behind that a finding would name: the connection only read.
            if let database { try? database.close() }
            lock.lock()
            running -= 1
            lock.broadcast()
            lock.unlock()
        }

        private func claim(_ count: Int) -> Int? {
            lock.lock()
            defer { lock.unlock() }
            while next < count, early.contains(next) { next += 1 }
            guard next < count else { return nil }
            next += 1
            return next - 1
        }

        private static func run(_ scan: Plan.Scan, on database: SQLiteDatabase) throws(SQLiteError) -> Outcome {
            switch scan {
            case .quickCheck:
                return .strings(try database.strings("PRAGMA quick_check"))
            case .table(_, let sql, _):
                return .strings(try PublishCheck.tableDigests(try database.prepare(sql)))
            case .index(_, _, _, let sql):
                do {
                    return .strings(try database.strings(sql))
                } catch where error.primary == .error {
                    return .unreadable(error.message)
                }
            }
        }

        /// Until every scan has its outcome and every worker has closed its connection.
        func waitForAll() {
            lock.lock()
            while running > 0 || results.indices.contains(where: { results[$0] == nil && !early.contains($0) }) { lock.wait() }
            lock.unlock()
        }

        func outcomes() throws(SQLiteError) -> [Outcome] {
            lock.lock()
            defer { lock.unlock() }
            var outcomes: [Outcome] = []
            for result in results { outcomes.append(try result!.get()) }
            return outcomes
        }
    }

    /// The columns the writer's digest of `offers` covers, in its order.
    static let offersColumns = ["pharmacy_id", "aptcode", "price_cents"]

    /// One row: a digest per column list, then the content digest of every
    /// column, from the table's own b-tree, in one aggregate that reads each
    /// column once (`ingest_table_digests`). NOT INDEXED alone would not
    /// keep SQLite off a covering index for a full scan (the very index
    /// under test); the content digest names every column, which no index
    /// of ours covers.
    static func tableScanSQL(_ database: SQLiteDatabase, _ table: String, digests: [[String]]) throws(SQLiteError) -> String {
        let columns = try database.strings("SELECT name FROM pragma_table_info(\(quoted(table, "'"))) ORDER BY cid")
        var groups: [String] = []
        for names in digests {
            var positions: [String] = []
            for name in names {
                if name.isEmpty { // an expression (pragma_index_info names none): `''` in the index's scan
                    positions.append("x")
                    continue
                }
                guard let position = columns.firstIndex(of: name) else {
                    throw SQLiteError(.error, message: "the publish check: table \(table) has no column \(name)")
                }
                positions.append(String(position))
            }
            groups.append(positions.joined(separator: ","))
        }
        // A table without rows gives NULL: every digest empty.
        let empty = Array(repeating: "0:0000000000000000", count: digests.count + 1).joined(separator: " ")
        let arguments = columns.map { quoted($0, "\"") }.joined(separator: ", ")
        return """
            SELECT coalesce(ingest_table_digests('\(groups.joined(separator: ";"))', \(arguments)), '\(empty)') FROM \(quoted(table, "\"")) NOT INDEXED
            """
    }

    /// The digests of a table scan's one row, in the order `tableScanSQL` listed them.
    static func tableDigests(_ statement: SQLiteStatement) throws(SQLiteError) -> [String] {
        guard try statement.step(), let text = statement.string(0) else { return [] }
        return text.split(separator: " ").map(String.init)
    }

    /// FTS5's `integrity-check` of each search index against `items`, its
    /// content table: it is an INSERT, so it needs a connection that may
    /// write (the writer's, before it closes), though it changes nothing.
    public static func searchIndexProblems(in database: SQLiteDatabase) throws(SQLiteError) -> String? {
        for index in SnapshotSchema.searchIndexNames {
            do {
                try database.execute("INSERT INTO \(index)(\(index)) VALUES ('integrity-check')")
            } catch where error.primary == .corrupt {
                return "\(index): \(error.message)"
            }
        }
        return nil
    }

    private static func quoted(_ name: String, _ quote: Character) -> String {
        "\(quote)" + name.replacingOccurrences(of: "\(quote)", with: "\(quote)\(quote)") + "\(quote)"
    }
}

/// An order-free digest of rows, the Swift side of `ingest_check_digest`: the
/// writer adds every offer it inserts (and takes out what it deletes), so
/// the publish check can compare the file with what was meant to be
/// written; the wrong-data checks digest each feed's item lines to find one
/// pharmacy's stock under another's id. One hash for both, in the shim.
public struct TableDigest: Sendable, Equatable {
    /// One row's values, hashed in order, each tagged with its type.
    public struct Row {
        fileprivate var hash = ingest_digest_row_start()

        public init() {}

        public mutating func text(_ value: String) {
            var value = value
            hash = value.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    guard let base = chars.baseAddress else { return ingest_check_text(hash, "", 0) }
                    return ingest_check_text(hash, base, Int32(chars.count))
                }
            }
        }

        /// nil hashes as SQL NULL.
        public mutating func int(_ value: Int64?) {
            hash = value.map { ingest_check_int(hash, $0) } ?? ingest_check_null(hash)
        }
    }

    private var state = ingest_digest_state(sum: 0, mix: 0, count: 0)

    public init() {}

    public mutating func add(_ row: Row) { ingest_digest_add(&state, row.hash) }
    public mutating func remove(_ row: Row) { ingest_digest_remove(&state, row.hash) }

    /// An offer as the publish check reads it back: `ingest_check_digest(pharmacy_id, aptcode, price_cents)`.
    public static func offer(pharmacyID: String, aptcode: String, priceCents: Int64) -> Row {
        var row = Row()
        row.text(pharmacyID)
        row.text(aptcode)
        row.int(priceCents)
        return row
    }

    public var value: UInt64 {
        var copy = state
        return ingest_digest_value(&copy)
    }

    /// "<rows>:<digest in hex>", as the SQL aggregate writes it.
    public var text: String {
        let hex = String(value, radix: 16)
        return "\(state.count):" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    public static func == (a: TableDigest, b: TableDigest) -> Bool { a.text == b.text }
}
