import IngestAdapters
import IngestCore
import IngestSnapshot

/// GS1 trade item datasheets (FEEDS.md §10): packaging hierarchies, each
/// datasheet's attributes (descriptions per language, dimensions, weight,
/// the provider's GLN) and each inspected attribute's result, and the image
/// URL and brand of items whose stock feed gave none.
struct GS1Set: ReferenceSet {
    static let adapter = GS1DatasheetAdapter()
    static let tables = [
        SnapshotTable(name: "gs1_items", create: """
            CREATE TABLE gs1_items(
                gtin TEXT PRIMARY KEY, unit_descriptor TEXT, brand TEXT, description TEXT,
                net_content TEXT, image_url TEXT, checks_passed INTEGER, checks_warning INTEGER,
                checks_failed INTEGER, checks_unable INTEGER,
                provider_gln TEXT, net_content_unit TEXT, height_mm REAL, width_mm REAL, depth_mm REAL, gross_weight_g REAL
            ) WITHOUT ROWID
            """, about: TableAbout("GS1 datasheets", "Trade items from GS1 datasheets, with the outcome of their validation checks.", columns: [
                ("gtin", "GTIN, 14 digits"), ("unit_descriptor", "Trade item unit (BASE_UNIT_OR_EACH, PACK_OR_INNER_PACK, CASE, …)"),
                ("brand", "Brand name"), ("description", "Description"), ("net_content", "Net content with its unit"),
                ("image_url", "Image"), ("checks_passed", "Validation checks passed"), ("checks_warning", "Checks with a warning"),
                ("checks_failed", "Checks failed"), ("checks_unable", "Checks that could not be run"),
                ("provider_gln", "GLN of the information provider"), ("net_content_unit", "Unit of the net content (UN/ECE code, H87 pieces)"),
                ("height_mm", "Height, millimetres"), ("width_mm", "Width, millimetres"), ("depth_mm", "Depth, millimetres"),
                ("gross_weight_g", "Gross weight, grams"),
            ], label: "description", sort: "gtin")),
        SnapshotTable(name: "gs1_descriptions", create: """
            CREATE TABLE gs1_descriptions(
                gtin TEXT NOT NULL REFERENCES gs1_items(gtin), lang TEXT NOT NULL, text TEXT,
                PRIMARY KEY (gtin, lang)
            ) WITHOUT ROWID
            """, about: TableAbout("GS1 descriptions", "Each trade item's description in each language its datasheet gives.", columns: [
                ("gtin", "Trade item"), ("lang", "Language code"), ("text", "Description"),
            ], label: "text", sort: "gtin")),
        SnapshotTable(name: "gs1_inspections", create: """
            CREATE TABLE gs1_inspections(
                gtin TEXT NOT NULL REFERENCES gs1_items(gtin), attribute TEXT NOT NULL, result INTEGER, inspected_on TEXT,
                PRIMARY KEY (gtin, attribute)
            ) WITHOUT ROWID
            """, about: TableAbout("GS1 inspections", "Each inspected attribute of a datasheet and its result; a failed attribute supplies no data.", columns: [
                ("gtin", "Trade item"), ("attribute", "Attribute id (imageUrl, brandName, netContent, …)"),
                ("result", "0 unable, 1 passed, 2 warning, 3 failed"), ("inspected_on", "The inspection's date, where given"),
            ], sort: "gtin")),
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
        // Schema 5's attributes, where `current` has them (an older one keeps the four counts only).
        let attributes = try previous.database.hasColumn("provider_gln", in: "gs1_items")
        var descriptions: [String: [(lang: String, text: String)]] = [:]
        var inspections: [String: [GS1TradeItem.Inspection]] = [:]
        if try previous.hasTable("gs1_descriptions") {
            let rows = try previous.database.prepare("SELECT gtin, lang, text FROM gs1_descriptions ORDER BY gtin, lang")
            while try rows.step() { descriptions[rows.string(0) ?? "", default: []].append((rows.string(1) ?? "", rows.string(2) ?? "")) }
        }
        if try previous.hasTable("gs1_inspections") {
            let rows = try previous.database.prepare("SELECT gtin, attribute, result, inspected_on FROM gs1_inspections ORDER BY gtin, attribute")
            while try rows.step() {
                inspections[rows.string(0) ?? "", default: []].append(.init(attribute: rows.string(1) ?? "", result: Int(rows.int64(2)),
                                                                            inspectedOn: rows.string(3)))
            }
        }
        let statement = try previous.database.prepare("""
            SELECT gtin, unit_descriptor, brand, description, net_content, image_url,
                   checks_passed, checks_warning, checks_failed, checks_unable\(attributes ? """
                   , provider_gln, net_content_unit, height_mm, width_mm, depth_mm, gross_weight_g
                   """ : "") FROM gs1_items
            """)
        func real(_ column: Int32) -> Double? { statement.isNull(column) ? nil : statement.double(column) }
        while try statement.step() {
            let gtin = statement.string(0) ?? ""
            var item = GS1TradeItem(gtin: gtin, unitDescriptor: statement.string(1) ?? "", brand: statement.string(2),
                                    description: statement.string(3), netContent: statement.string(4), imageURL: statement.string(5),
                                    children: children[gtin] ?? [], line: 0)
            item.checksPassed = Int(statement.int64(6))
            item.checksWarning = Int(statement.int64(7))
            item.checksFailed = Int(statement.int64(8))
            item.checksUnable = Int(statement.int64(9))
            if attributes {
                (item.providerGLN, item.netContentUnit) = (statement.string(10), statement.string(11))
                (item.heightMM, item.widthMM, item.depthMM, item.grossWeightG) = (real(12), real(13), real(14), real(15))
            }
            item.descriptions = descriptions[gtin] ?? []
            item.inspections = inspections[gtin] ?? []
            items[gtin] = item
        }
        return !items.isEmpty
    }

    func write(to writer: SnapshotWriter) throws {
        let insert = try writer.database.cachedStatement("""
            INSERT INTO gs1_items(gtin, unit_descriptor, brand, description, net_content, image_url,
                                  checks_passed, checks_warning, checks_failed, checks_unable,
                                  provider_gln, net_content_unit, height_mm, width_mm, depth_mm, gross_weight_g)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        // A language given twice keeps its first description (the table's key).
        let description = try writer.database.cachedStatement("INSERT OR IGNORE INTO gs1_descriptions(gtin, lang, text) VALUES (?, ?, ?)")
        let inspection = try writer.database.cachedStatement("INSERT INTO gs1_inspections(gtin, attribute, result, inspected_on) VALUES (?, ?, ?, ?)")
        let child = try writer.database.cachedStatement("INSERT INTO gs1_children(parent_gtin, position, child_gtin, quantity) VALUES (?, ?, ?, ?)")
        for item in items.values.sorted(by: { $0.gtin < $1.gtin }) {
            try insert.run(.text(item.gtin), .text(item.unitDescriptor), .text(item.brand), .text(item.description), .text(item.netContent),
                           .text(item.imageURL), .int(Int64(item.checksPassed)), .int(Int64(item.checksWarning)),
                           .int(Int64(item.checksFailed)), .int(Int64(item.checksUnable)),
                           .text(item.providerGLN), .text(item.netContentUnit), .real(item.heightMM), .real(item.widthMM), .real(item.depthMM),
                           .real(item.grossWeightG))
            for entry in item.descriptions { try description.run(.text(item.gtin), .text(entry.lang), .text(entry.text)) }
            for entry in item.inspections {
                try inspection.run(.text(item.gtin), .text(entry.attribute), .int(Int64(entry.result)), .text(entry.inspectedOn))
            }
            for (position, entry) in item.children.enumerated() {
                try child.run(.text(item.gtin), .int(Int64(position + 1)), .text(entry.gtin), .int(entry.quantity))
            }
        }
    }
}
