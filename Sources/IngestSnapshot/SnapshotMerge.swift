import CSQLite
import IngestCore

/// The rows that differ between two snapshots, found by reading each table
/// of both in primary-key order side by side: one sequential pass over
/// each b-tree. `sqlite3session_diff` looks every row of one file up in the
/// other by key instead (12–20 s and a gigabyte mapped on the national
/// snapshot in `ingest-serve`); the night already has both files open and
/// merges them once, writing the changeset as it goes and telling the
/// report's diff what it saw (`observe`), so the night's changes are
/// computed once.
///
/// Keys compare as SQLite orders them: NULL, then numbers, then text by
/// bytes (every key column of a snapshot uses the BINARY collation), then
/// blobs. Other columns are equal when their type and value are.
public enum SnapshotMerge {
    public enum Change: Sendable { case inserted, deleted, updated }

    /// One table's columns as the merge reads them.
    public struct Layout: Sendable {
        public var table: String
        public var columns: [String]
        public var primaryKey: [Bool]
        /// Each column's place in the key, from 1 (0: not in it), as the changeset's table header gives it.
        var keyPositions: [UInt8]
        /// Key columns in the key's order.
        var keyColumns: [Int32]

        /// The column's position in the rows `observe` is shown.
        public func index(of column: String) -> Int32? { columns.firstIndex(of: column).map(Int32.init) }
    }

    /// Writes the changeset from the snapshot attached as `old` to `main`
    /// of `database`, table by table in the order given, into `writer`;
    /// `observe` sees each changed row (the old row, the new row, or both,
    /// on statements positioned on them).
    public static func writeChangeset(in database: SQLiteDatabase, tables: [String], to writer: ChangesetWriter,
                                      observe: (Layout, Change, SQLiteStatement?, SQLiteStatement?) throws -> Void = { _, _, _, _ in }) throws {
        for table in tables {
            let layout = try Self.layout(of: table, in: database)
            writer.table(table, keyPositions: layout.keyPositions)
            try merge(layout, in: database, writer: writer, observe: observe)
        }
    }

    static func layout(of table: String, in database: SQLiteDatabase) throws -> Layout {
        let info = try database.prepare("SELECT name, pk FROM pragma_table_info(?1, 'main') ORDER BY cid")
        try info.bind(table, at: 1)
        var columns: [String] = []
        var keys: [(position: Int64, column: Int32)] = []
        while try info.step() {
            if info.int64(1) > 0 { keys.append((info.int64(1), Int32(columns.count))) }
            columns.append(info.string(0) ?? "")
        }
        let keyColumns = keys.sorted { $0.position < $1.position }.map(\.column)
        var keyPositions = [UInt8](repeating: 0, count: columns.count)
        for (place, column) in keyColumns.enumerated() { keyPositions[Int(column)] = UInt8(place + 1) }
        return Layout(table: table, columns: columns, primaryKey: keyPositions.map { $0 > 0 }, keyPositions: keyPositions, keyColumns: keyColumns)
    }

    private static func merge(_ layout: Layout, in database: SQLiteDatabase, writer: ChangesetWriter,
                              observe: (Layout, Change, SQLiteStatement?, SQLiteStatement?) throws -> Void) throws {
        let quoted = { (name: String) in "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let list = layout.columns.map(quoted).joined(separator: ", ")
        let order = layout.keyColumns.map { quoted(layout.columns[Int($0)]) }.joined(separator: ", ")
        // After the columns, the others than the key as one blob (`ingest_changeset_values`, C in
        // the shim): most rows are unchanged, and one memcmp says so where reading every value
        // through the API cost four calls a column (the merge's time on the bench's second night).
        let rest = layout.columns.indices.filter { !layout.primaryKey[$0] }.map { quoted(layout.columns[$0]) }.joined(separator: ", ")
        let select = { (schema: String) in "SELECT \(list), ingest_changeset_values(\(rest)) FROM \(schema).\(quoted(layout.table)) ORDER BY \(order)" }
        let new = try database.prepare(select("main"))
        let old = try database.prepare(select("old"))
        let count = Int32(layout.columns.count)
        var changed = [Bool](repeating: false, count: layout.columns.count)
        var (hasNew, hasOld) = (try new.step(), try old.step())
        while hasNew || hasOld {
            let order = !hasOld ? -1 : !hasNew ? 1 : keyOrder(new.handle, old.handle, layout.keyColumns)
            if order < 0 {
                try writer.whole(.insert, new.handle, offset: 0, count: count)
                try observe(layout, .inserted, nil, new)
                hasNew = try new.step()
            } else if order > 0 {
                try writer.whole(.delete, old.handle, offset: 0, count: count)
                try observe(layout, .deleted, old, nil)
                hasOld = try old.step()
            } else if sameValue(old.handle, new.handle, count) {
                (hasNew, hasOld) = (try new.step(), try old.step())
            } else {
                var any = false
                for column in 0..<count where !layout.primaryKey[Int(column)] {
                    changed[Int(column)] = !sameValue(old.handle, new.handle, column)
                    any = any || changed[Int(column)]
                }
                if any {
                    try writer.update(old: old.handle, oldOffset: 0, new: new.handle, newOffset: 0, primaryKey: layout.primaryKey, changed: changed)
                    try observe(layout, .updated, old, new)
                }
                (hasNew, hasOld) = (try new.step(), try old.step())
            }
        }
    }

    /// SQLite's order of the two rows' keys.
    static func keyOrder(_ a: OpaquePointer, _ b: OpaquePointer, _ keys: [Int32]) -> Int {
        for column in keys {
            let order = valueOrder(a, b, column)
            if order != 0 { return order }
        }
        return 0
    }

    /// NULL < numbers < text < blob (SQLite's "Sort Order"), text and blobs by bytes.
    static func valueOrder(_ a: OpaquePointer, _ b: OpaquePointer, _ column: Int32) -> Int {
        let (typeA, typeB) = (sqlite3_column_type(a, column), sqlite3_column_type(b, column))
        let (classA, classB) = (sortClass(typeA), sortClass(typeB))
        if classA != classB { return classA < classB ? -1 : 1 }
        switch classA {
        case 0:
            return 0
        case 1:
            if typeA == SQLITE_INTEGER, typeB == SQLITE_INTEGER {
                let (x, y) = (sqlite3_column_int64(a, column), sqlite3_column_int64(b, column))
                return x < y ? -1 : (x > y ? 1 : 0)
            }
            let (x, y) = (sqlite3_column_double(a, column), sqlite3_column_double(b, column))
            return x < y ? -1 : (x > y ? 1 : 0)
        default:
            return byteOrder(bytes(a, column, text: classA == 2), bytes(b, column, text: classB == 2))
        }
    }

    private static func sortClass(_ type: Int32) -> Int {
        switch type {
        case SQLITE_NULL: 0
        case SQLITE_INTEGER, SQLITE_FLOAT: 1
        case SQLITE_TEXT: 2
        default: 3
        }
    }

    private static func bytes(_ statement: OpaquePointer, _ column: Int32, text: Bool) -> UnsafeRawBufferPointer {
        let start = text ? UnsafeRawPointer(sqlite3_column_text(statement, column)) : sqlite3_column_blob(statement, column)
        return UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(statement, column)))
    }

    /// The same type and value: what the changeset calls unchanged.
    static func sameValue(_ a: OpaquePointer, _ b: OpaquePointer, _ column: Int32) -> Bool {
        let type = sqlite3_column_type(a, column)
        guard type == sqlite3_column_type(b, column) else { return false }
        switch type {
        case SQLITE_NULL: return true
        case SQLITE_INTEGER: return sqlite3_column_int64(a, column) == sqlite3_column_int64(b, column)
        case SQLITE_FLOAT: return sqlite3_column_double(a, column).bitPattern == sqlite3_column_double(b, column).bitPattern
        default:
            let text = type == SQLITE_TEXT
            return byteOrder(bytes(a, column, text: text), bytes(b, column, text: text)) == 0
        }
    }
}
