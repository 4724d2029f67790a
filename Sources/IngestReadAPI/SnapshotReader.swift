import IngestCore
import IngestSnapshot

/// One read-only connection to one snapshot file and the SQL of the read
/// queries, each statement prepared once. Used by one request at a time
/// (`OpenSnapshot` lends it out).
final class SnapshotReader {
    let database: SQLiteDatabase
    /// The file's schema version (`PRAGMA user_version`): the server reads
    /// this one and the one before (an upgrade never takes the API down).
    let schema: Int64

    /// Tables a file may lack: `items_folded` came within schema 5, the
    /// register and the GS1 tables only with their reference files.
    let hasFoldedSearch, hasRegister, hasGS1Hierarchy: Bool

    init(path: String) throws(SQLiteError) {
        database = try SQLiteDatabase(path: path, readOnly: true)
        schema = try database.scalarInt("PRAGMA user_version") ?? 0
        let tables = Set(try database.strings("SELECT name FROM sqlite_schema WHERE type = 'table'"))
        hasFoldedSearch = tables.contains("items_folded")
        hasRegister = tables.contains("medicine_register")
        hasGS1Hierarchy = tables.contains("gs1_children")
    }

    struct Item {
        var aptcode, name, producer: String
        /// `rx` as answers write it (search answers only).
        var prescription = ""
        var packageCode, atc, activeSubstance, infoURL, imageURL: String?
    }

    func item(_ aptcode: String) throws(SQLiteError) -> Item? {
        let statement = try database.cachedStatement("""
            SELECT name, producer, package_code, atc, active_substance, info_url, image_url FROM items WHERE aptcode = ?
            """)
        defer { statement.reset() }
        try statement.bind(aptcode, at: 1)
        guard try statement.step() else { return nil }
        return Item(aptcode: aptcode, name: statement.string(0) ?? "", producer: statement.string(1) ?? "",
                    packageCode: statement.string(2), atc: statement.string(3), activeSubstance: statement.string(4),
                    infoURL: statement.string(5), imageURL: statement.string(6))
    }

    /// The FTS5 queries of one search (`ItemSearchText` written for each
    /// index): `matching` decides what is found, the others only the order.
    struct SearchPlan {
        /// On `wordIndex`: every term, corrected where a word had a typo.
        var matching: String
        /// On `items_search`: the words as typed, diacritics kept.
        var exact: String
        /// On `wordIndex`: every term within the name.
        var inName: String
        /// On `wordIndex`: the name starts with the first term.
        var startsName: String
    }

    /// The index words are found in: `items_folded` (no case, no
    /// diacritics), or in a file of the schema before it, `items_search`.
    var wordIndex: String { hasFoldedSearch ? "items_folded" : "items_search" }

    /// What `search`, `searchCount` and `matches` share: the rows found, within the ATC prefix and the `rx` choice.
    private func searchSource(_ plan: SearchPlan?, atcPrefix: String?, prescription: Bool?) -> String {
        var source = plan == nil ? "FROM items WHERE 1" : "FROM \(wordIndex) JOIN items ON items.rowid = \(wordIndex).rowid WHERE \(wordIndex) MATCH ?1"
        if atcPrefix != nil { source += " AND items.atc >= ?3 AND items.atc < ?3 || '~'" }
        if let prescription { source += " AND \(prescriptionColumn) \(prescription ? "=" : "<>") '1'" }
        return source
    }

    /// An item's `rx` as the answers write it: `1` prescription only, `0` not, `` unknown (FEEDS.md §11 writes Rx or OTC).
    private var prescriptionColumn: String {
        hasRegister ? """
            coalesce((SELECT CASE upper(prescription) WHEN 'RX' THEN '1' WHEN 'OTC' THEN '0' END
                      FROM medicine_register WHERE medicine_register.package_code = items.package_code), '')
            """ : "''"
    }

    /// Items found by `plan` (nil: all) within the ATC prefix and the
    /// `prescription` choice (nil: either), at most `limit`, in the order
    /// of READ_API.md Version 3: matches of the words with their diacritics
    /// first, then name matches, names that start with the first word, the
    /// shorter name, the name. Without words: by name. The prefix is a
    /// range on `items_by_atc`: ATC codes are capital letters and digits,
    /// all sorting before `~`.
    func search(_ plan: SearchPlan?, atcPrefix: String? = nil, prescription: Bool? = nil, limit: Int) throws(SQLiteError) -> [Item] {
        let order = plan == nil ? "items.name, items.aptcode" : """
            items.rowid NOT IN (SELECT rowid FROM items_search WHERE items_search MATCH ?4),
            items.rowid NOT IN (SELECT rowid FROM \(wordIndex) WHERE \(wordIndex) MATCH ?5),
            items.rowid NOT IN (SELECT rowid FROM \(wordIndex) WHERE \(wordIndex) MATCH ?6),
            length(items.name), items.name, items.aptcode
            """
        let statement = try database.cachedStatement("""
            SELECT items.aptcode, items.name, items.producer, \(prescriptionColumn)
            \(searchSource(plan, atcPrefix: atcPrefix, prescription: prescription)) ORDER BY \(order) LIMIT ?2
            """)
        defer { statement.reset() }
        if let plan {
            try statement.bind(plan.matching, at: 1)
            try statement.bind(plan.exact, at: 4)
            try statement.bind(plan.inName, at: 5)
            try statement.bind(plan.startsName, at: 6)
        }
        try statement.bind(limit, at: 2)
        if let atcPrefix { try statement.bind(atcPrefix, at: 3) }
        var items: [Item] = []
        while try statement.step() {
            items.append(Item(aptcode: statement.string(0) ?? "", name: statement.string(1) ?? "", producer: statement.string(2) ?? "",
                              prescription: statement.string(3) ?? ""))
        }
        return items
    }

    /// How many items `search` would find without a limit.
    func searchCount(_ plan: SearchPlan?, atcPrefix: String? = nil, prescription: Bool? = nil) throws(SQLiteError) -> Int {
        let statement = try database.cachedStatement("SELECT count(*) \(searchSource(plan, atcPrefix: atcPrefix, prescription: prescription))")
        defer { statement.reset() }
        if let plan { try statement.bind(plan.matching, at: 1) }
        if let atcPrefix { try statement.bind(atcPrefix, at: 3) }
        _ = try statement.step()
        return Int(statement.int64(0))
    }

    /// Whether `search` finds the item `aptcode`: an exact code match it
    /// finds too is counted once.
    func matches(aptcode: String, _ plan: SearchPlan?, atcPrefix: String? = nil, prescription: Bool? = nil) throws(SQLiteError) -> Bool {
        let statement = try database.cachedStatement("""
            SELECT count(*) \(searchSource(plan, atcPrefix: atcPrefix, prescription: prescription)) AND items.aptcode = ?2
            """)
        defer { statement.reset() }
        if let plan { try statement.bind(plan.matching, at: 1) }
        try statement.bind(aptcode, at: 2)
        if let atcPrefix { try statement.bind(atcPrefix, at: 3) }
        _ = try statement.step()
        return statement.int64(0) > 0
    }

    /// Every word `items_folded` holds, for typo correction; none in a file without it.
    func searchVocabulary() throws(SQLiteError) -> SearchVocabulary {
        guard hasFoldedSearch else { return SearchVocabulary(terms: []) }
        try database.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.items_folded_words USING fts5vocab(main, items_folded, 'row')")
        return SearchVocabulary(terms: try database.strings("SELECT term FROM temp.items_folded_words"))
    }

    /// Items a code names exactly: its aptcode, package code or GTIN (each
    /// an index lookup), with their ATC codes and `rx`. A GTIN of a case or
    /// a pallet names the items below it in the GS1 hierarchy (READ_API.md,
    /// Version 3), four levels down at most (FEEDS.md §10 has four).
    func items(named code: ScannedCode, prescription: Bool? = nil) throws(SQLiteError) -> [(item: Item, atc: String?)] {
        var found: [(Item, String?)] = []
        let filter = prescription.map { " AND \(prescriptionColumn) \($0 ? "=" : "<>") '1'" } ?? ""
        let gtinLookup = hasGS1Hierarchy ? """
            gtin IN (WITH RECURSIVE below(gtin, depth) AS (
                         SELECT ?1, 0
                         UNION SELECT gs1_children.child_gtin, below.depth + 1 FROM gs1_children JOIN below ON gs1_children.parent_gtin = below.gtin
                         WHERE below.depth < 4)
                     SELECT gtin FROM below)
            """ : "gtin = ?1"
        for (condition, value) in [("aptcode = ?1", code.aptcode), ("package_code = ?1", code.packageCode), (gtinLookup, code.gtin)] {
            guard let value else { continue }
            let statement = try database.cachedStatement("""
                SELECT aptcode, name, producer, atc, \(prescriptionColumn) FROM items WHERE \(condition)\(filter) ORDER BY name, aptcode
                """)
            defer { statement.reset() }
            try statement.bind(value, at: 1)
            while try statement.step() {
                found.append((Item(aptcode: statement.string(0) ?? "", name: statement.string(1) ?? "", producer: statement.string(2) ?? "",
                                   prescription: statement.string(4) ?? ""),
                              statement.string(3)))
            }
        }
        return found
    }

    /// Every offer of one item: pharmacy, shelf price and quantity (nil: not reported), from the covering index `offers_by_item`.
    /// Offers at a pharmacy `directory` does not know are left out, as
    /// `?q=ip` always did: the snapshot's foreign keys make that only a guard.
    func offers(of aptcode: String, in directory: PharmacyDirectory) throws(SQLiteError)
        -> [(pharmacy: PharmacyDirectory.Index, priceCents: Int64, quantity: Int64?)] {
        let statement = try database.cachedStatement("SELECT pharmacy_id, price_cents, quantity FROM offers WHERE aptcode = ?")
        defer { statement.reset() }
        try statement.bind(aptcode, at: 1)
        var offers: [(PharmacyDirectory.Index, Int64, Int64?)] = []
        while try statement.step() {
            guard let pharmacy = directory.index(ofID: statement.textBytes(0)) else { continue }
            offers.append((pharmacy, statement.int64(1), statement.isNull(2) ? nil : statement.int64(2)))
        }
        return offers
    }

    struct Offer {
        var priceCents: Int64
        var limitCents, tier50, tier75, tier90, tier100: Int64?
    }

    func offer(pharmacyID: String, aptcode: String) throws(SQLiteError) -> Offer? {
        let statement = try database.cachedStatement("""
            SELECT price_cents, limit_price_cents, price_50_cents, price_75_cents, price_90_cents, price_100_cents
            FROM offers WHERE pharmacy_id = ? AND aptcode = ?
            """)
        defer { statement.reset() }
        try statement.bind(pharmacyID, at: 1)
        try statement.bind(aptcode, at: 2)
        guard try statement.step() else { return nil }
        func cents(_ column: Int32) -> Int64? { statement.isNull(column) ? nil : statement.int64(column) }
        return Offer(priceCents: statement.int64(0), limitCents: cents(1), tier50: cents(2), tier75: cents(3), tier90: cents(4), tier100: cents(5))
    }

    /// The listed tiers of a package: rate → (diagnoses, info) as published.
    func tiers(packageCode: String) throws(SQLiteError) -> [Int64: (diagnoses: String, info: String)] {
        let statement = try database.cachedStatement("SELECT rate, diagnoses, info FROM reimbursements WHERE package_code = ?")
        defer { statement.reset() }
        try statement.bind(packageCode, at: 1)
        var tiers: [Int64: (String, String)] = [:]
        while try statement.step() { tiers[statement.int64(0)] = (statement.string(1) ?? "", statement.string(2) ?? "") }
        return tiers
    }

    /// One offer's shelf prices, newest first: (since, cents). Schema 5
    /// keeps the one in force in `offers` and the replaced ones in
    /// `price_history`; schema 4 kept them all in `price_history`.
    func priceHistory(pharmacyID: String, aptcode: String) throws(SQLiteError) -> [(since: String, cents: Int64)] {
        let statement = try database.cachedStatement(schema >= 5 ? """
            SELECT price_since, price_cents FROM offers WHERE pharmacy_id = ?1 AND aptcode = ?2
            UNION ALL
            SELECT since, price_cents FROM price_history WHERE pharmacy_id = ?1 AND aptcode = ?2
            ORDER BY 1 DESC
            """ : "SELECT since, price_cents FROM price_history WHERE pharmacy_id = ?1 AND aptcode = ?2 ORDER BY since DESC")
        defer { statement.reset() }
        try statement.bind(pharmacyID, at: 1)
        try statement.bind(aptcode, at: 2)
        var rows: [(String, Int64)] = []
        while try statement.step() { rows.append((statement.string(0) ?? "", statement.int64(1))) }
        return rows
    }

    /// What the medicine register in the snapshot says of a package; nil when it does not list it.
    func register(packageCode: String) throws(SQLiteError) -> (form: String, strength: String, packSize: String, rx: String, spcURL: String)? {
        let statement = try database.cachedStatement(
            "SELECT form, strength, pack_size, prescription, spc_url FROM medicine_register WHERE package_code = ?")
        defer { statement.reset() }
        try statement.bind(packageCode, at: 1)
        guard try statement.step() else { return nil }
        // FEEDS.md §11 writes Rx or OTC; anything else is not known.
        let rx = switch (statement.string(3) ?? "").uppercased() { case "RX": "1"; case "OTC": "0"; default: "" }
        return (statement.string(0) ?? "", statement.string(1) ?? "", statement.string(2) ?? "", rx, statement.string(4) ?? "")
    }

    /// The children of an ATC group (the top level for nil), by code, with
    /// the items under each and the groups directly under each.
    func atcChildren(of parent: String?) throws(SQLiteError) -> [(code: String, name: String, items: Int64, children: Int64)] {
        let statement = try database.cachedStatement(parent == nil
            ? "SELECT code, name, item_count, coalesce(child_count, 0) FROM atc WHERE parent IS NULL ORDER BY code"
            : "SELECT code, name, item_count, coalesce(child_count, 0) FROM atc WHERE parent = ? ORDER BY code")
        defer { statement.reset() }
        if let parent { try statement.bind(parent, at: 1) }
        var groups: [(String, String, Int64, Int64)] = []
        while try statement.step() { groups.append((statement.string(0) ?? "", statement.string(1) ?? "", statement.int64(2), statement.int64(3))) }
        return groups
    }

    /// Every pharmacy: few hundred rows, read once per snapshot.
    func pharmacies() throws(SQLiteError) -> [PharmacyRow] {
        let statement = try database.prepare("""
            SELECT id, name, region, chain_id, address, phone, open_hours, latitude, longitude, last_refresh, item_count, stale FROM pharmacies
            """)
        var pharmacies: [PharmacyRow] = []
        while try statement.step() {
            let position = statement.isNull(7) || statement.isNull(8)
                ? nil : GeoPoint(latitude: statement.double(7), longitude: statement.double(8))
            pharmacies.append(PharmacyRow(id: statement.string(0) ?? "", name: statement.string(1) ?? "", region: statement.string(2) ?? "",
                                          chainID: statement.string(3) ?? "", address: statement.string(4) ?? "",
                                          phone: statement.string(5) ?? "", openHours: statement.string(6) ?? "",
                                          position: position, lastRefresh: statement.string(9),
                                          itemCount: statement.int64(10), stale: statement.int64(11) != 0))
        }
        return pharmacies
    }

    /// Items whose package the list reimburses for `icd` (a listed code or
    /// range includes it: `J45.0` is in `J45`, in `J40-J47`), by name, with
    /// the rates listed for it; none in a file without the list.
    func itemsReimbursed(for icd: String) throws(SQLiteError) -> [(item: Item, rates: [Int])] {
        guard try database.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'reimbursement_diagnoses'") == 1 else { return [] }
        let statement = try database.cachedStatement("""
            SELECT items.aptcode, items.name, items.producer, group_concat(DISTINCT d.rate)
            FROM reimbursement_diagnoses AS d JOIN items ON items.package_code = d.package_code
            WHERE ?1 >= d.icd_from AND (?1 <= d.icd_to OR substr(?1, 1, length(d.icd_to)) = d.icd_to)
            GROUP BY items.aptcode ORDER BY items.name, items.aptcode
            """)
        defer { statement.reset() }
        try statement.bind(icd, at: 1)
        var found: [(Item, [Int])] = []
        while try statement.step() {
            let rates = (statement.string(3) ?? "").split(separator: ",").compactMap { Int($0) }.sorted()
            found.append((Item(aptcode: statement.string(0) ?? "", name: statement.string(1) ?? "", producer: statement.string(2) ?? ""), rates))
        }
        return found
    }

    /// The ICD-10 list's name of `code`, else of its category (`J45.9` → `J45`); "" when the list has neither.
    func icdName(_ code: String) throws(SQLiteError) -> String {
        guard try database.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'icd10'") == 1 else { return "" }
        let statement = try database.cachedStatement("SELECT name FROM icd10 WHERE code = ?")
        defer { statement.reset() }
        for candidate in [code, String(code.prefix(3))] {
            statement.reset()
            try statement.bind(candidate, at: 1)
            if try statement.step() { return statement.string(0) ?? "" }
        }
        return ""
    }

    /// The diagnoses a package's tiers list, parsed (`reimbursement_diagnoses`), each range once, in list order.
    func listedDiagnoses(packageCode: String) throws(SQLiteError) -> [(from: String, to: String)] {
        guard try database.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'reimbursement_diagnoses'") == 1 else { return [] }
        let statement = try database.cachedStatement("""
            SELECT icd_from, icd_to FROM reimbursement_diagnoses WHERE package_code = ? GROUP BY icd_from, icd_to ORDER BY min(rate), min(position)
            """)
        defer { statement.reset() }
        try statement.bind(packageCode, at: 1)
        var ranges: [(String, String)] = []
        while try statement.step() { ranges.append((statement.string(0) ?? "", statement.string(1) ?? "")) }
        return ranges
    }

    /// One GS1 datasheet as `q=g` answers it; nil for a GTIN no datasheet
    /// gives (or a file without GS1). A file before schema 5 has no
    /// attributes beyond the first ones: they answer empty.
    func datasheet(gtin: String) throws(SQLiteError) -> Datasheet? {
        guard hasGS1Hierarchy else { return nil }
        let attributes = try database.hasColumn("provider_gln", in: "gs1_items")
        let statement = try database.cachedStatement("""
            SELECT unit_descriptor, brand, description, net_content, image_url\(attributes ? ", net_content_unit, height_mm, width_mm, depth_mm, gross_weight_g, provider_gln" : "")
            FROM gs1_items WHERE gtin = ?
            """)
        defer { statement.reset() }
        try statement.bind(gtin, at: 1)
        guard try statement.step() else { return nil }
        func text(_ column: Int32) -> String { attributes || column < 5 ? statement.string(column) ?? "" : "" }
        func number(_ column: Int32) -> String {
            guard attributes, !statement.isNull(column) else { return "" }
            let value = statement.double(column)
            return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
        var sheet = Datasheet(gtin: gtin, level: text(0), brand: text(1), description: text(2), netContent: text(3), image: text(4),
                              netContentUnit: text(5), height: number(6), width: number(7), depth: number(8), grossWeight: number(9), gln: text(10))
        for row in try database.rows("SELECT child_gtin, quantity FROM gs1_children WHERE parent_gtin = ?1 ORDER BY position", .text(gtin)) {
            sheet.children.append((row[0] ?? "", row[1] ?? ""))
        }
        for table in ["gs1_descriptions", "gs1_inspections"] where try database.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = '\(table)'") == 1 {
            if table == "gs1_descriptions" {
                for row in try database.rows("SELECT lang, text FROM gs1_descriptions WHERE gtin = ?1 ORDER BY lang", .text(gtin)) {
                    sheet.descriptions.append((row[0] ?? "", row[1] ?? ""))
                }
            } else {
                for row in try database.rows("SELECT attribute, result, inspected_on FROM gs1_inspections WHERE gtin = ?1 ORDER BY attribute", .text(gtin)) {
                    sheet.inspections.append((row[0] ?? "", row[1] ?? "", row[2] ?? ""))
                }
            }
        }
        return sheet
    }

    struct Datasheet {
        var gtin, level, brand, description, netContent, image, netContentUnit, height, width, depth, grossWeight, gln: String
        var descriptions: [(lang: String, text: String)] = []
        var children: [(gtin: String, quantity: String)] = []
        var inspections: [(attribute: String, result: String, date: String)] = []
    }

    /// `pharmacy_hours` by pharmacy id; nil in a file without the table (before Version 3).
    func openingHours() throws(SQLiteError) -> [String: OpeningHours]? {
        guard try database.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'pharmacy_hours'") == 1 else { return nil }
        let statement = try database.prepare("SELECT pharmacy_id, weekday, opens, closes FROM pharmacy_hours")
        var intervals: [String: [OpeningHours.Interval]] = [:]
        while try statement.step() {
            guard let opens = OpeningHours.clockTime(statement.string(2) ?? ""), let closes = OpeningHours.clockTime(statement.string(3) ?? "")
            else { continue }
            intervals[statement.string(0) ?? "", default: []].append(.init(weekday: Int(statement.int64(1)), opens: opens, closes: closes))
        }
        return intervals.mapValues { OpeningHours(intervals: $0) }
    }

    /// The legend of the reimbursement conditions' abbreviations, in code order.
    func legend() throws(SQLiteError) -> [(code: String, text: String)] {
        let statement = try database.prepare("SELECT code, text FROM diagnosis_legend ORDER BY code")
        var legend: [(String, String)] = []
        while try statement.step() { legend.append((statement.string(0) ?? "", statement.string(1) ?? "")) }
        return legend
    }
}

/// A pharmacy's row as the snapshot holds it; `PharmacyDirectory` is what
/// the queries keep of them.
struct PharmacyRow {
    var id, name, region, chainID, address, phone, openHours: String
    var position: GeoPoint?
    var lastRefresh: String?
    var itemCount: Int64
    var stale: Bool
}
