/// What a table holds, said for people who browse a snapshot with a generic
/// client: `DatasetteMetadata` writes it beside each snapshot. It lives on
/// the table's definition (`SnapshotTable.about`) so that a new table is
/// described where it is declared, and a test holds every table's columns
/// to their descriptions.
public struct TableAbout: Sendable {
    public var title: String
    public var description: String
    /// Every column in table order with what it means; money columns say
    /// their unit (euro cents) here, since Datasette's `units` knows no currency.
    public var columns: [(name: String, about: String)]
    /// The column that names a row where another table points at it (Datasette's `label_column`).
    public var label: String?
    /// The default order for browsing.
    public var sort: String?
    /// The FTS table a search box uses (Datasette's `fts_table`, rowid-keyed).
    public var searchIndex: String?
    /// Machinery rather than data (the search indexes).
    public var hidden: Bool

    public init(_ title: String, _ description: String, columns: [(name: String, about: String)] = [], label: String? = nil,
                sort: String? = nil, searchIndex: String? = nil, hidden: Bool = false) {
        self.title = title
        self.description = description
        self.columns = columns
        self.label = label
        self.sort = sort
        self.searchIndex = searchIndex
        self.hidden = hidden
    }
}
