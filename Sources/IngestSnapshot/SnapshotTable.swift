/// One table of the snapshot, as the writer handles it: created before the
/// load, indexed after it, analysed, counted in the manifest. The core
/// tables are `SnapshotSchema.core`; each reference kind brings its own
/// (the pipeline's `ReferenceSet.tables`), so a new kind adds its tables
/// where its rows are made, not in a list here.
public struct SnapshotTable: Sendable {
    public let name: String
    /// The `CREATE TABLE` (or `CREATE VIRTUAL TABLE`) statement.
    public let create: String
    /// `CREATE INDEX` statements, run after the bulk load (one sort each
    /// instead of millions of random inserts).
    public let indexes: [String]
    /// ANALYZE after the load; off for `offers`, whose statistics the writer
    /// counts itself, and for virtual tables.
    public let analysed: Bool
    /// Its row count goes to the manifest.
    public let counted: Bool
    public let about: TableAbout

    public init(name: String, create: String, indexes: [String] = [], analysed: Bool = true, counted: Bool = true, about: TableAbout) {
        self.name = name
        self.about = about
        self.create = create
        self.indexes = indexes
        self.analysed = analysed
        self.counted = counted
    }
}
