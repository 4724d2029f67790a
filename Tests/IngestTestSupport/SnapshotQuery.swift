import CSQLite
import Foundation

/// Reads a snapshot the way a read service would: read-only, plain SQL.
public final class SnapshotQuery {
    private var handle: OpaquePointer?

    public init(_ path: String) throws {
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(handle))
            sqlite3_close(handle)
            throw NSError(domain: "SnapshotQuery", code: 1, userInfo: [NSLocalizedDescriptionKey: message])
        }
    }

    deinit { sqlite3_close(handle) }

    /// Every row as strings (NULL as nil).
    public func rows(_ sql: String) -> [[String?]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            fatalError("bad test SQL: \(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        defer { sqlite3_finalize(statement) }
        var result: [[String?]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            result.append((0..<sqlite3_column_count(statement)).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) }
            })
        }
        return result
    }

    public func value(_ sql: String) -> String? { rows(sql).first?.first ?? nil }
    public func int(_ sql: String) -> Int? { value(sql).flatMap { Int($0) } }
}
