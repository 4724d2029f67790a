import Foundation

/// Whether two snapshot files hold the same data: the same ordinary tables,
/// declared alike, with the same rows, and the same `meta` but for the keys
/// that describe the run rather than the data (its version, clock, and
/// importer). A night that would publish the same data again publishes
/// nothing (SNAPSHOT.md: re-running a night is harmless).
///
/// Compared in SQLite, `EXCEPT` both ways table by table, with the older file
/// attached: it costs a scan of both files, and the caller asks only when no
/// stock feed was loaded (any loaded feed changes its pharmacy's row).
public enum SnapshotContent {
    /// `meta` keys that change with every run, not with the data.
    public static let runKeys: Set<String> = ["snapshot_version", "created_at", "as_of", "run_date", "importer_version"]

    /// Where `new` differs from `old`, in words ("offers: 3 rows only in the newer"); nil when they hold the same data.
    /// `ignoring`: the `meta` keys left out (`runKeys`; none, to ask whether a copy is exactly the file).
    public static func difference(old: String, new: String, ignoring ignored: Set<String> = runKeys) throws -> String? {
        let database = try SQLiteDatabase(path: new, readOnly: true)
        defer { try? database.close() } // read-only: nothing is lost if closing fails
        try database.execute("ATTACH DATABASE '\(old.replacingOccurrences(of: "'", with: "''"))' AS old")
        let tables = try SnapshotTableList.tables(in: database)
        if let difference = SnapshotTableList.difference(old: try SnapshotTableList.tables(in: database, schema: "old"), new: tables) {
            return difference
        }
        let runKeys = (ignored.isEmpty ? ["''"] : ignored.sorted().map { "'\($0)'" }).joined(separator: ", ")
        for table in tables.map(\.name) {
            let rows = table == "meta" ? "SELECT * FROM %@.meta WHERE key NOT IN (\(runKeys))" : "SELECT * FROM %@.\"\(table)\""
            let newRows = rows.replacingOccurrences(of: "%@", with: "main")
            let oldRows = rows.replacingOccurrences(of: "%@", with: "old")
            let onlyNew = try database.scalarInt("SELECT count(*) FROM (\(newRows) EXCEPT \(oldRows))") ?? 0
            let onlyOld = try database.scalarInt("SELECT count(*) FROM (\(oldRows) EXCEPT \(newRows))") ?? 0
            if onlyNew > 0 || onlyOld > 0 { return "\(table): \(onlyNew) rows only in the newer, \(onlyOld) only in the older" }
        }
        return nil
    }
}
