import CSQLite
import Foundation

/// Reads a whole changeset against the copy it is meant for before anything
/// is applied: every change's table is one of the copy's, with as many
/// columns and the same primary key, and every value the change carries
/// reads back. libsqlite3 3.40 trusts a changeset's bytes: a damaged one
/// hung `sqlite3changeset_next` for over 14 minutes, crashed it, or applied
/// as wrong data. The walk may meet the same damage, so `snapshots apply`
/// runs it in a child process bounded in time; it never writes.
public enum ChangesetWalk {
    /// What is wrong, for a person; nil when every change fits the copy.
    public static func problem(in changeset: Data, against copy: String) throws -> String? {
        let database = try SQLiteDatabase(path: copy, readOnly: true)
        defer { try? database.close() } // read-only: nothing to lose
        var tables: [String: [Bool]] = [:]
        for table in try SnapshotTableList.tables(in: database).map(\.name) {
            let statement = try database.prepare("SELECT pk FROM pragma_table_info(?) ORDER BY cid")
            try statement.bind(table, at: 1)
            var keys: [Bool] = []
            while try statement.step() { keys.append(statement.int64(0) > 0) }
            tables[table] = keys
        }
        var bytes = changeset
        return bytes.withUnsafeMutableBytes { buffer -> String? in
            var iterator: OpaquePointer?
            guard sqlite3changeset_start(&iterator, Int32(buffer.count), buffer.baseAddress) == SQLITE_OK, let iterator else {
                return "the changeset cannot be opened"
            }
            defer { sqlite3changeset_finalize(iterator) }
            var count = 0
            while true {
                let step = sqlite3changeset_next(iterator)
                if step == SQLITE_DONE { break }
                guard step == SQLITE_ROW else { return "change \(count + 1) cannot be read (SQLite code \(step))" }
                count += 1
                var name: UnsafePointer<CChar>?
                var columns: Int32 = 0
                var operation: Int32 = 0
                var indirect: Int32 = 0
                guard sqlite3changeset_op(iterator, &name, &columns, &operation, &indirect) == SQLITE_OK, let name else {
                    return "change \(count) names no table"
                }
                let table = String(cString: name)
                guard let keys = tables[table] else { return "change \(count) is to table \(table.debugDescription), which the copy does not have" }
                guard Int(columns) == keys.count else {
                    return "change \(count) to \(table) has \(columns) columns, the copy's table \(keys.count)"
                }
                var declared: UnsafeMutablePointer<UInt8>?
                var keyColumns: Int32 = 0
                guard sqlite3changeset_pk(iterator, &declared, &keyColumns) == SQLITE_OK, let declared,
                      (0..<keys.count).allSatisfy({ (declared[$0] != 0) == keys[$0] }) else {
                    return "change \(count) to \(table) declares another primary key than the copy's"
                }
                let sides: [(String, (OpaquePointer, Int32, UnsafeMutablePointer<OpaquePointer?>) -> Int32)]
                switch operation {
                case SQLITE_INSERT: sides = [("new", sqlite3changeset_new)]
                case SQLITE_DELETE: sides = [("old", sqlite3changeset_old)]
                case SQLITE_UPDATE: sides = [("old", sqlite3changeset_old), ("new", sqlite3changeset_new)]
                default: return "change \(count) to \(table) is neither an insert, an update nor a delete"
                }
                for (side, read) in sides {
                    for column in 0..<Int32(keys.count) {
                        var value: OpaquePointer?
                        guard read(iterator, column, &value) == SQLITE_OK else {
                            return "change \(count) to \(table): its \(side) value of column \(column) cannot be read"
                        }
                        // A key is always present in full (an update's new side may leave it out: unchanged).
                        if keys[Int(column)], value == nil, side == "old" || operation == SQLITE_INSERT {
                            return "change \(count) to \(table) lacks its primary key"
                        }
                        if let value { _ = sqlite3_value_bytes(value) } // reads the value through
                    }
                }
            }
            return nil
        }
    }
}
