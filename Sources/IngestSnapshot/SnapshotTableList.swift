/// The ordinary tables of a snapshot file as SQLite lists them: not the
/// search indexes (virtual), not their shadow tables, not SQLite's own.
/// What a changeset carries and what "the same content" compares; both
/// need two files to have the same tables, declared alike, or they are of
/// different schemas whatever `user_version` says.
public enum SnapshotTableList {
    public struct Table: Equatable, Sendable {
        public var name: String
        /// The `CREATE TABLE` statement, as stored in `sqlite_schema`.
        public var sql: String
    }

    /// The ordinary tables of `schema` (`main`, or an attached name) on `database`, by name.
    public static func tables(in database: SQLiteDatabase, schema: String = "main") throws -> [Table] {
        let statement = try database.prepare("""
            SELECT t.name, s.sql FROM pragma_table_list AS t JOIN \(schema).sqlite_schema AS s ON s.name = t.name AND s.type = 'table'
            WHERE t.schema = ? AND t.type = 'table' AND t.name NOT LIKE 'sqlite_%' ORDER BY t.name
            """)
        try statement.bind(schema, at: 1)
        var tables: [Table] = []
        while try statement.step() { tables.append(Table(name: statement.string(0) ?? "", sql: statement.string(1) ?? "")) }
        return tables
    }

    /// How the tables of `old` and `new` differ, in words; nil when they are the same.
    public static func difference(old: [Table], new: [Table]) -> String? {
        let oldByName = Dictionary(old.map { ($0.name, $0.sql) }, uniquingKeysWith: { first, _ in first })
        let newByName = Dictionary(new.map { ($0.name, $0.sql) }, uniquingKeysWith: { first, _ in first })
        var parts: [String] = []
        let added = new.map(\.name).filter { oldByName[$0] == nil }
        let removed = old.map(\.name).filter { newByName[$0] == nil }
        let changed = new.map(\.name).filter { oldByName[$0] != nil && oldByName[$0] != newByName[$0] }
        if !added.isEmpty { parts.append("tables only in the newer: \(added.joined(separator: ", "))") }
        if !removed.isEmpty { parts.append("tables only in the older: \(removed.joined(separator: ", "))") }
        if !changed.isEmpty { parts.append("tables declared differently: \(changed.joined(separator: ", "))") }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
