import Foundation

/// The Datasette metadata file written beside each snapshot
/// (`<version>.datasette.json`): titles, descriptions and units of every
/// table and column, labels for foreign keys, the default sort, and the
/// search configuration, from the tables' own `TableAbout`.
///
/// Datasette names a database after its file's stem, so the tables are
/// described under both names a snapshot is opened by: its version
/// (`<version>.sqlite`) and `current` (the symlink).
///
/// Items search with `items_substring` in Datasette's default, escaped mode:
/// Datasette quotes each word (`ibu` becomes `"ibu"`), which in the trigram
/// index matches any part of a word, so `ibu` finds IBUMETIN.
public enum DatasetteMetadata {
    public static func encoded(schema: SnapshotSchema, version: String) throws -> Data {
        var tables: [String: Any] = [:]
        for table in schema.tables { tables[table.name] = describe(table.about) }
        let database: [String: Any] = [
            "title": "Snapshot \(version)",
            "description": "Pharmacy prices and stock, schema version \(SnapshotSchema.version). Money is in integer euro cents (*_cents).",
            "tables": tables,
        ]
        let metadata: [String: Any] = [
            "title": "Pharmacy prices and stock",
            "description": "What every pharmacy sells at what price, and what a patient pays at each reimbursement tier.",
            "databases": [version: database, "current": database],
        ]
        return try JSONSerialization.data(withJSONObject: metadata, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    private static func describe(_ about: TableAbout) -> [String: Any] {
        var table: [String: Any] = ["title": about.title, "description": about.description]
        if !about.columns.isEmpty {
            table["columns"] = Dictionary(about.columns.map { ($0.name, $0.about) }, uniquingKeysWith: { first, _ in first })
        }
        if let label = about.label { table["label_column"] = label }
        if let sort = about.sort { table["sort"] = sort }
        if let index = about.searchIndex {
            table["fts_table"] = index
            table["fts_pk"] = "rowid"
        }
        if about.hidden { table["hidden"] = true }
        return table
    }
}
