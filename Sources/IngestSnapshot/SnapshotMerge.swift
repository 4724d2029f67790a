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

    /// Which of a table's rows a merge reads, by the first column of its
    /// key: two merges of the halves on either side of one boundary write
    /// together, lower then upper, exactly the whole table's records.
    public enum KeyRange: Sendable {
        case all
        /// Rows whose first key column sorts before this text.
        case below(String)
        /// Rows whose first key column is this text or sorts after it.
        case from(String)
    }

    /// What a merge shows of each changed row: the old row, the new row, or both.
    public typealias Observer = (Layout, Change, Row?, Row?) throws -> Void

    /// Writes the changeset from the snapshot attached as `old` to `main`
    /// of `database`, table by table in the order given, into `writer`;
    /// `observe` sees each changed row (the old row, the new row, or both).
    public static func writeChangeset(in database: SQLiteDatabase, tables: [String], to writer: ChangesetWriter,
                                      observe: Observer = { _, _, _, _ in }) throws {
        for table in tables {
            try writeTable(table, in: database, to: writer, observe: observe)
        }
    }

    /// One table's records, or those of `range`, after its header (a part
    /// writer takes no header: its records follow another's).
    public static func writeTable(_ table: String, range: KeyRange = .all, in database: SQLiteDatabase, to writer: ChangesetWriter,
                                  observe: Observer = { _, _, _, _ in }) throws {
        let layout = try Self.layout(of: table, in: database)
        writer.table(table, keyPositions: layout.keyPositions)
        try merge(layout, range: range, in: database, writer: writer, observe: observe)
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

    private static func merge(_ layout: Layout, range: KeyRange, in database: SQLiteDatabase, writer: ChangesetWriter,
                              observe: Observer) throws {
        let quoted = { (name: String) in "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let keys = layout.keyColumns.map { quoted(layout.columns[Int($0)]) }.joined(separator: ", ")
        // The key columns to order by, then the whole row as one blob in the changeset's own
        // encoding (`ingest_changeset_values`, C in the shim): most rows are unchanged, and one
        // memcmp says so; an inserted or deleted row is the blob as it is. Reading every value
        // through the API cost four calls a column, 19–35 % of the merge on the bench's second night.
        let all = layout.columns.map(quoted).joined(separator: ", ")
        let first = layout.keyColumns.first.map { quoted(layout.columns[Int($0)]) } ?? "NULL"
        let (filter, boundary): (String, String?) = switch range {
        case .all: ("", nil)
        case .below(let text): (" WHERE \(first) < ?1", text)
        case .from(let text): (" WHERE \(first) >= ?1", text)
        }
        let select = { (schema: String) in
            "SELECT \(keys), ingest_changeset_values(\(all)) FROM \(schema).\(quoted(layout.table))\(filter) ORDER BY \(keys)"
        }
        let new = try database.prepare(select("main"))
        let old = try database.prepare(select("old"))
        if let boundary {
            try new.bind(boundary, at: 1)
            try old.bind(boundary, at: 1)
        }
        let keyCount = layout.keyColumns.count
        let rowColumn = Int32(keyCount)
        let keyPlaces = (0..<Int32(keyCount)).map { $0 }
        var changed = [Bool](repeating: false, count: layout.columns.count)
        var (oldRow, newRow) = (Row(), Row())
        var (hasNew, hasOld) = (try new.step(), try old.step())
        while hasNew || hasOld {
            let order = !hasOld ? -1 : !hasNew ? 1 : keyOrder(new.handle, old.handle, keyPlaces)
            if order < 0 {
                let values = bytes(new.handle, rowColumn, text: false)
                writer.record(.insert, values: values)
                try writer.flushIfFull()
                try newRow.read(values, columns: layout.columns.count)
                try observe(layout, .inserted, nil, newRow)
                hasNew = try new.step()
            } else if order > 0 {
                let values = bytes(old.handle, rowColumn, text: false)
                writer.record(.delete, values: values)
                try writer.flushIfFull()
                try oldRow.read(values, columns: layout.columns.count)
                try observe(layout, .deleted, oldRow, nil)
                hasOld = try old.step()
            } else if sameValue(old.handle, new.handle, rowColumn) {
                (hasNew, hasOld) = (try new.step(), try old.step())
            } else {
                try oldRow.read(bytes(old.handle, rowColumn, text: false), columns: layout.columns.count)
                try newRow.read(bytes(new.handle, rowColumn, text: false), columns: layout.columns.count)
                var any = false
                for column in changed.indices where !layout.primaryKey[column] {
                    changed[column] = byteOrder(oldRow.values[column], newRow.values[column]) != 0
                    any = any || changed[column]
                }
                if any {
                    writer.update(old: oldRow.values, new: newRow.values, primaryKey: layout.primaryKey, changed: changed)
                    try writer.flushIfFull()
                    try observe(layout, .updated, oldRow, newRow)
                }
                (hasNew, hasOld) = (try new.step(), try old.step())
            }
        }
    }

    /// One row as the merge read it: each column's value in the changeset's
    /// encoding, in the table's column order. The bytes are SQLite's until
    /// its statement steps on: `observe` reads them at once or not at all.
    public struct Row {
        /// Each value's bytes: its type byte, then its body.
        public private(set) var values: [UnsafeRawBufferPointer] = []

        /// A value that did not decode: the blob came from our own function, so this is a defect, not bad data.
        public struct Malformed: Error, CustomStringConvertible {
            public var description: String { "a row's changeset encoding did not decode" }
        }

        /// Cuts `blob` into `columns` values.
        mutating func read(_ blob: UnsafeRawBufferPointer, columns: Int) throws(Malformed) {
            values.removeAll(keepingCapacity: true)
            var offset = 0
            while values.count < columns {
                guard offset < blob.count else { throw Malformed() }
                let start = offset
                switch blob[offset] {
                case 1, 2: offset += 9
                case 3, 4:
                    offset += 1
                    let (length, width) = ChangesetWriter.readVarint(blob, at: offset)
                    guard width > 0 else { throw Malformed() }
                    offset += width + Int(length)
                case 5: offset += 1
                default: throw Malformed()
                }
                guard offset <= blob.count else { throw Malformed() }
                values.append(UnsafeRawBufferPointer(rebasing: blob[start..<offset]))
            }
        }

        public func isNull(_ column: Int32) -> Bool { values[Int(column)].first == 5 }

        /// The column's integer; 0 for any other type.
        public func int64(_ column: Int32) -> Int64 {
            let value = values[Int(column)]
            guard value.first == 1, value.count == 9 else { return 0 }
            return Int64(bitPattern: value.dropFirst().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }

        /// The column's text; nil for any other type.
        public func string(_ column: Int32) -> String? {
            let value = values[Int(column)]
            guard value.first == 3 else { return nil }
            let (length, width) = ChangesetWriter.readVarint(value, at: 1)
            return String(decoding: UnsafeRawBufferPointer(rebasing: value[(1 + width)..<(1 + width + Int(length))]), as: UTF8.self)
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
