import IngestAdapters
import IngestCore
import IngestSnapshot

/// GS1 trade item datasheets (FEEDS.md §10): packaging hierarchies, and the
/// image URL and brand of items whose stock feed gave none.
struct GS1Set: ReferenceSet {
    static let adapter = GS1DatasheetAdapter()
    static let tables = [
        SnapshotTable(name: "gs1_items", create: """
            CREATE TABLE gs1_items(
                gtin TEXT PRIMARY KEY, unit_descriptor TEXT, brand TEXT, description TEXT,
                net_content TEXT, image_url TEXT, checks_passed INTEGER, checks_warning INTEGER,
                checks_failed INTEGER, checks_unable INTEGER
            ) WITHOUT ROWID
            """, about: TableAbout("GS1 datasheets", "Trade items from GS1 datasheets, with the outcome of their validation checks.", columns: [
                ("gtin", "GTIN, 14 digits"), ("unit_descriptor", "Trade item unit (BASE_UNIT_OR_EACH, PACK_OR_INNER_PACK, CASE, …)"),
                ("brand", "Brand name"), ("description", "Description"), ("net_content", "Net content with its unit"),
                ("image_url", "Image"), ("checks_passed", "Validation checks passed"), ("checks_warning", "Checks with a warning"),
                ("checks_failed", "Checks failed"), ("checks_unable", "Checks that could not be run"),
            ], label: "description", sort: "gtin")),
        SnapshotTable(name: "gs1_children", create: """
            CREATE TABLE gs1_children(
                parent_gtin TEXT NOT NULL REFERENCES gs1_items(gtin), position INTEGER NOT NULL,
                child_gtin TEXT NOT NULL, quantity INTEGER NOT NULL,
                PRIMARY KEY (parent_gtin, position)
            ) WITHOUT ROWID
            """, about: TableAbout("GS1 packaging", "What each trade item contains: its children and how many of each.", columns: [
                ("parent_gtin", "Containing trade item"), ("position", "Place in the parent's list"),
                ("child_gtin", "Contained trade item"), ("quantity", "How many"),
            ])),
    ]

    private(set) var items: [String: GS1TradeItem] = [:]

    var isEmpty: Bool { items.isEmpty }

    mutating func add(_ records: [GS1TradeItem], from file: FeedFile, loaded: ReferenceData, report: inout RunReport) throws {
        for item in records where items[item.gtin] == nil { items[item.gtin] = item }
    }

    mutating func keep(from previous: PreviousSnapshot) throws -> Bool {
        var children: [String: [GS1TradeItem.Child]] = [:]
        // A snapshot of schema 1 has no position: its rows are in the order they were listed.
        let order = try previous.database.hasColumn("position", in: "gs1_children") ? "parent_gtin, position" : "rowid"
        let child = try previous.database.prepare("SELECT parent_gtin, child_gtin, quantity FROM gs1_children ORDER BY \(order)")
        while try child.step() {
            children[child.string(0) ?? "", default: []].append(.init(gtin: child.string(1) ?? "", quantity: child.int64(2)))
        }
        let statement = try previous.database.prepare("""
            SELECT gtin, unit_descriptor, brand, description, net_content, image_url,
                   checks_passed, checks_warning, checks_failed, checks_unable FROM gs1_items
            """)
        while try statement.step() {
            let gtin = statement.string(0) ?? ""
            var item = GS1TradeItem(gtin: gtin, unitDescriptor: statement.string(1) ?? "", brand: statement.string(2),
                                    description: statement.string(3), netContent: statement.string(4), imageURL: statement.string(5),
                                    children: children[gtin] ?? [], line: 0)
            item.checksPassed = Int(statement.int64(6))
            item.checksWarning = Int(statement.int64(7))
            item.checksFailed = Int(statement.int64(8))
            item.checksUnable = Int(statement.int64(9))
            items[gtin] = item
        }
        return !items.isEmpty
    }

    func write(to writer: SnapshotWriter) throws {
        let insert = try writer.database.cachedStatement("""
            INSERT INTO gs1_items(gtin, unit_descriptor, brand, description, net_content, image_url,
                                  checks_passed, checks_warning, checks_failed, checks_unable)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let child = try writer.database.cachedStatement("INSERT INTO gs1_children(parent_gtin, position, child_gtin, quantity) VALUES (?, ?, ?, ?)")
        for item in items.values.sorted(by: { $0.gtin < $1.gtin }) {
            try insert.run(.text(item.gtin), .text(item.unitDescriptor), .text(item.brand), .text(item.description), .text(item.netContent),
                           .text(item.imageURL), .int(Int64(item.checksPassed)), .int(Int64(item.checksWarning)),
                           .int(Int64(item.checksFailed)), .int(Int64(item.checksUnable)))
            for (position, entry) in item.children.enumerated() {
                try child.run(.text(item.gtin), .int(Int64(position + 1)), .text(entry.gtin), .int(entry.quantity))
            }
        }
    }
}
