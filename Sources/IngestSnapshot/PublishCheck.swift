import CSQLite
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
    /// What is wrong, or nil. `offers`: the writer's digest of what it inserted.
    public static func problems(in database: SQLiteDatabase, offers expected: TableDigest? = nil) throws(SQLiteError) -> String? {
        var problems: [String] = []
        let quick = try database.strings("PRAGMA quick_check")
        if quick != ["ok"] { problems.append("quick_check: " + quick.prefix(5).joined(separator: "; ")) }
        var indexes: [String: [(name: String, columns: String)]] = [:]
        let list = try database.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
        while try list.step() {
            let (index, table) = (list.string(0) ?? "", list.string(1) ?? "")
            let columns = try database.strings("SELECT name FROM pragma_index_info(\(quoted(index, "'"))) ORDER BY seqno")
            indexes[table, default: []].append((index, columns.map { quoted($0, "\"") }.joined(separator: ", ")))
        }
        if expected != nil { indexes["offers", default: []].append(("", Self.offersColumns)) }
        for table in indexes.keys.sorted() {
            let checks = indexes[table]!
            // One scan of the table's own b-tree gives every digest its indexes (and the writer) must match.
            let scan = try database.prepare(try tableScanSQL(database, table, digests: checks.map(\.columns)))
            let fromTable = try scan.step() ? checks.indices.map { scan.string(Int32($0)) ?? "" } : []
            for (position, check) in checks.enumerated() {
                let tableDigest = position < fromTable.count ? fromTable[position] : ""
                guard !check.name.isEmpty else {
                    if let expected, tableDigest != expected.text {
                        problems.append("offers holds \(tableDigest) (rows:digest), the writer inserted \(expected.text)")
                    }
                    continue
                }
                let fromIndex: String
                do {
                    fromIndex = try database.strings("""
                        SELECT ingest_digest(\(check.columns)) FROM \(quoted(table, "\"")) INDEXED BY \(quoted(check.name, "\""))
                        """).first ?? ""
                } catch where error.primary == .error {
                    // An index that cannot be scanned whole (made partial behind the writer's back) cannot hold its table.
                    problems.append("index \(check.name) cannot be read whole: \(error.message)")
                    continue
                }
                if fromIndex != tableDigest {
                    problems.append("index \(check.name) holds \(fromIndex) (rows:digest), its table \(table) \(tableDigest)")
                }
            }
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    /// The columns the writer's digest of `offers` covers, in its order.
    static let offersColumns = "pharmacy_id, aptcode, price_cents"

    /// One row: a digest per column list, from the table's own b-tree. NOT
    /// INDEXED is not enough: SQLite still scans a covering index for a full
    /// scan (the very index under test), so the query also counts a column
    /// that none of the table's indexes holds (`quantity` of `offers`), or,
    /// when there is none, every column.
    static func tableScanSQL(_ database: SQLiteDatabase, _ table: String, digests: [String]) throws(SQLiteError) -> String {
        let columns = try database.strings("SELECT name FROM pragma_table_info(\(quoted(table, "'")))")
        var indexed = Set(try database.strings("SELECT name FROM pragma_table_info(\(quoted(table, "'"))) WHERE pk > 0"))
        for index in try database.strings("SELECT name FROM pragma_index_list(\(quoted(table, "'")))") {
            indexed.formUnion(try database.strings("SELECT name FROM pragma_index_info(\(quoted(index, "'")))"))
        }
        let reader = columns.first { !indexed.contains($0) }.map { "count(\(quoted($0, "\"")))" }
            ?? "max(length(\(columns.map { "quote(\(quoted($0, "\"")))" }.joined(separator: " || "))))"
        let list = digests.map { "ingest_digest(\($0))" }.joined(separator: ", ")
        return "SELECT \(list), \(reader) FROM \(quoted(table, "\"")) NOT INDEXED"
    }

    /// FTS5's `integrity-check` of the search index: it is an INSERT, so it
    /// needs a connection that may write (the writer's, before it closes),
    /// though it changes nothing.
    public static func searchIndexProblems(in database: SQLiteDatabase) throws(SQLiteError) -> String? {
        do {
            try database.execute("INSERT INTO items_search(items_search) VALUES ('integrity-check')")
            return nil
        } catch where error.primary == .corrupt {
            return "items_search: \(error.message)"
        }
    }

    private static func quoted(_ name: String, _ quote: Character) -> String {
        "\(quote)" + name.replacingOccurrences(of: "\(quote)", with: "\(quote)\(quote)") + "\(quote)"
    }
}

/// An order-free digest of rows, the Swift side of `ingest_digest`: the
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
                    guard let base = chars.baseAddress else { return ingest_digest_text(hash, "", 0) }
                    return ingest_digest_text(hash, base, Int32(chars.count))
                }
            }
        }

        /// nil hashes as SQL NULL.
        public mutating func int(_ value: Int64?) {
            hash = value.map { ingest_digest_int(hash, $0) } ?? ingest_digest_null(hash)
        }
    }

    private var state = ingest_digest_state(sum: 0, mix: 0, count: 0)

    public init() {}

    public mutating func add(_ row: Row) { ingest_digest_add(&state, row.hash) }
    public mutating func remove(_ row: Row) { ingest_digest_remove(&state, row.hash) }

    /// An offer as the publish check reads it back: `ingest_digest(pharmacy_id, aptcode, price_cents)`.
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
