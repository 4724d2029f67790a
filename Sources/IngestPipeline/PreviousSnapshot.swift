import Foundation
import IngestAdapters
import IngestCore
import IngestSnapshot

/// The snapshot `current` points at, opened read-only: what carry-over copies
/// from, what quality gates and the diff compare against.
final class PreviousSnapshot {
    let version: String
    let path: String
    let database: SQLiteDatabase
    /// Pharmacy rows by id.
    let pharmacies: [String: PharmacyRow]
    let offerCount: Int
    let meta: [String: String]
    /// Its manifest, when it has one: where carried-over data first came from.
    let manifest: Manifest?
    /// How its offers tell since when their price holds (SNAPSHOT.md "Price history").
    let priceSince: PriceSinceSource
    /// Whether it has a `price_history` table to carry (schema 4 on).
    let hasPriceHistory: Bool

    /// Where yesterday's `price_since` of an offer comes from, by its schema.
    enum PriceSinceSource {
        /// Schema 5 on: the offer's own column.
        case column
        /// Schema 4: the offer's newest `price_history` row (the upgrade of SNAPSHOT.md).
        case newestHistoryRow
        /// Before schema 4: its pharmacy's export time, the first price known.
        case lastRefresh

        /// An SQL expression over `offers AS o` for the since; `?2` is the pharmacy's `last_refresh`, for rows that have none.
        var expression: String {
            switch self {
            case .column: "coalesce(o.price_since, ?2)"
            case .newestHistoryRow: "coalesce((SELECT max(h.since) FROM price_history AS h WHERE h.pharmacy_id = o.pharmacy_id AND h.aptcode = o.aptcode), ?2)"
            case .lastRefresh: "?2"
            }
        }
    }

    /// The snapshot `current` points at; nil when there is none (the first
    /// run). A `current` that exists but cannot be trusted — not a link, a
    /// link to nothing, a file that fails its manifest's SHA-256 or
    /// `quick_check`, or one that does not open — throws `Unreadable`: a
    /// damaged history is never quietly taken for a first night.
    static func open(_ directory: SnapshotDirectory) throws(Unreadable) -> PreviousSnapshot? {
        switch directory.currentLink() {
        case .absent:
            return nil
        case .damaged(let why):
            throw Unreadable(version: nil, reason: why)
        case .version(let version):
            let check = PublishedVersionCheck.begin(version, in: directory)
            if let problem = check.problem {
                _ = check.quickCheckProblem() // its thread reads the file: let it end first
                throw Unreadable(version: version, reason: "\(version) \(problem)")
            }
            do {
                let snapshot = try PreviousSnapshot(directory: directory, version: version)
                snapshot.check = check
                return snapshot
            } catch {
                if let problem = check.quickCheckProblem() { throw Unreadable(version: version, reason: "\(version) \(problem)") }
                throw Unreadable(version: version, reason: "\(version) cannot be read: \(error)")
            }
        }
    }

    /// The quick_check begun by `open`, still running while the night reads
    /// on (nil once confirmed, or for a snapshot opened otherwise).
    private var check: PublishedVersionCheck.Begun?

    /// Waits for `current`'s quick_check: the night reads `current` and the
    /// reference data while it runs (a second of one idle core on the
    /// national snapshot), and asks this before the first phase ends, and
    /// when anything fails meanwhile (a damaged file fails the reads too:
    /// quick_check's verdict is the one the operator is told).
    func confirm() throws(Unreadable) {
        guard let check else { return }
        if let problem = check.quickCheckProblem() { throw Unreadable(version: version, reason: "\(version) \(problem)") }
        self.check = nil
    }

    /// Why `current` cannot be built on.
    struct Unreadable: Error, CustomStringConvertible {
        var version: String?
        var reason: String
        var description: String { reason }
    }

    private init(directory: SnapshotDirectory, version: String) throws {
        self.version = version
        self.path = directory.snapshotPath(version)
        let database = try SQLiteDatabase(path: path, readOnly: true)
        self.database = database
        var pharmacies: [String: PharmacyRow] = [:]
        // Snapshots from before `loaded_at` have no such column: their data counts as loaded when it was exported.
        let hasLoadedAt = (try database.scalarInt("SELECT count(*) FROM pragma_table_info('pharmacies') WHERE name = 'loaded_at'") ?? 0) > 0
        let statement = try database.prepare("""
            SELECT id, name, chain_id, region, address, phone, open_hours, latitude, longitude, last_refresh, item_count, stale,
                   \(hasLoadedAt ? "loaded_at" : "NULL") FROM pharmacies
            """)
        while try statement.step() {
            let row = PharmacyRow(
                id: statement.string(0) ?? "", name: statement.string(1) ?? "", chainID: statement.string(2),
                region: statement.string(3), address: statement.string(4), phone: statement.string(5),
                openHours: statement.string(6), latitude: statement.isNull(7) ? nil : statement.double(7),
                longitude: statement.isNull(8) ? nil : statement.double(8), lastRefresh: statement.string(9) ?? "",
                itemCount: Int(statement.int64(10)), stale: statement.int64(11) != 0, loadedAt: statement.string(12))
            pharmacies[row.id] = row
        }
        self.pharmacies = pharmacies
        offerCount = Int(try database.scalarInt("SELECT count(*) FROM offers") ?? 0)
        var meta: [String: String] = [:]
        let metaRows = try database.prepare("SELECT key, value FROM meta")
        while try metaRows.step() { meta[metaRows.string(0) ?? ""] = metaRows.string(1) }
        self.meta = meta
        // A version without a manifest file is possible (published by hand, an
        // old layout): absence is normal. A manifest that is there must read.
        manifest = FileManager.default.fileExists(atPath: directory.manifestPath(version)) ? try directory.readManifest(version) : nil
        hasPriceHistory = try !database.strings("SELECT name FROM sqlite_schema WHERE type = 'table' AND name = 'price_history'").isEmpty
        if (try database.scalarInt("SELECT count(*) FROM pragma_table_info('offers') WHERE name = 'price_since'") ?? 0) > 0 {
            priceSince = .column
        } else {
            priceSince = hasPriceHistory ? .newestHistoryRow : .lastRefresh
        }
    }

    /// The manifest entry of the input that brought this pharmacy's (or this
    /// reference kind's) data into the previous snapshot.
    func input(for carry: CarryOver) -> Manifest.Input? {
        manifest?.inputs.first { input in
            guard input.outcome == "loaded" || input.outcome == "carried_over" else { return false }
            switch carry.kind {
            case .pharmacy: return input.pharmacyId == carry.key && input.kind == "stock"
            case .reference: return input.kind == carry.key
            }
        }
    }


    /// What this snapshot holds per pharmacy: the yardstick tonight's exports
    /// must beat. Data exported after `latestValid` is no yardstick: only a
    /// wrong clock can have dated it so, and it must not shut out correctly
    /// dated feeds (it is dropped when carried, see `StockLoader`).
    func currentStock(latestValid: Int64) throws -> [String: CurrentStock] {
        var loadedFiles: [String: String] = [:]
        for input in manifest?.inputs ?? [] where input.kind == FeedKind.stock.rawValue
            && (input.outcome == FeedOutcome.loaded.rawValue || input.outcome == FeedOutcome.carriedOver.rawValue) {
            if let id = input.pharmacyId { loadedFiles[id] = input.sha256 }
        }
        var digests: [String: Set<String>] = [:]
        for row in try loadedExports() { digests[row.pharmacyID, default: []].insert(row.sha256) }
        var result: [String: CurrentStock] = [:]
        for (id, row) in pharmacies {
            guard let exported = ExportTimestamp.parseISO8601(row.lastRefresh), exported.epochSeconds <= latestValid else { continue }
            result[id] = CurrentStock(exportedAt: exported, sha256: loadedFiles[id], version: version,
                                      loadedDigests: digests[id, default: []].union(loadedFiles[id].map { [$0] } ?? []))
        }
        return result
    }

    /// One pharmacy's offers in key order (shelf price and quantity; tier
    /// prices are computed again with tonight's list).
    /// One pharmacy's offers in key order, `batch` at a time (a carried
    /// pharmacy may have millions).
    func forEachOffers(of pharmacyID: String, batch: Int, _ body: ([OfferRow]) throws -> Void) throws {
        let statement = try offersWithSince(of: pharmacyID, columns: "o.quantity")
        var sinces = RepeatedText()
        var rows: [OfferRow] = []
        rows.reserveCapacity(batch)
        while try statement.step() {
            rows.append(OfferRow(aptcode: statement.string(0) ?? "", priceCents: statement.int64(1), priceSince: sinces.string(statement.textBytes(2)),
                                 quantity: statement.isNull(3) ? nil : statement.int64(3)))
            if rows.count == batch {
                try body(rows)
                rows.removeAll(keepingCapacity: true)
            }
        }
        if !rows.isEmpty { try body(rows) }
    }

    /// One pharmacy's offers in key order: aptcode, price, since, then `columns` (over `offers AS o`).
    func offersWithSince(of pharmacyID: String, columns: String? = nil) throws -> SQLiteStatement {
        let statement = try database.prepare("""
            SELECT o.aptcode, o.price_cents, \(priceSince.expression)\(columns.map { ", " + $0 } ?? "")
            FROM offers AS o WHERE o.pharmacy_id = ?1 ORDER BY o.aptcode
            """)
        try statement.bind(pharmacyID, at: 1)
        try statement.bind(pharmacies[pharmacyID]?.lastRefresh ?? "", at: 2)
        return statement
    }

    /// Shelf prices of one pharmacy's items from `first` on, in key order, at
    /// most `limit`: one range of the primary key (a few adjacent pages),
    /// where a point lookup per item cost a descent of the B-tree each on the
    /// writer's thread (the bench's next night: 17 % of the run).
    func prices(of pharmacyID: String, from first: String, limit: Int) throws -> [String: Int64] {
        let statement = try database.cachedStatement(
            "SELECT aptcode, price_cents FROM offers WHERE pharmacy_id = ? AND aptcode >= ? ORDER BY aptcode LIMIT ?")
        try statement.bind(pharmacyID, at: 1)
        try statement.bind(first, at: 2)
        try statement.bind(limit, at: 3)
        var prices: [String: Int64] = [:]
        prices.reserveCapacity(limit)
        while try statement.step() { prices[statement.string(0) ?? ""] = statement.int64(1) }
        return prices
    }

    func item(_ aptcode: String) throws -> ItemRow? {
        let statement = try database.cachedStatement("""
            SELECT aptcode, package_code, gtin, name, producer, atc, active_substance, info_url, image_url FROM items WHERE aptcode = ?
            """)
        try statement.bind(aptcode, at: 1)
        guard try statement.step() else { return nil }
        return ItemRow(aptcode: statement.string(0) ?? "", packageCode: statement.string(1), gtin: statement.string(2),
                       name: statement.string(3) ?? "", producer: statement.string(4), atc: statement.string(5),
                       activeSubstance: statement.string(6), infoURL: statement.string(7), imageURL: statement.string(8))
    }

    /// Every item code `current` holds: an unregistered pharmacy id equal to
    /// one is a shifted column (`PharmacyIDShape`).
    func aptcodes() throws -> Set<String> {
        Set(try database.strings("SELECT aptcode FROM items"))
    }

    /// `meta.currency`; a snapshot written before currencies says none and is in EUR.
    func currency() throws -> String? {
        try database.strings("SELECT value FROM meta WHERE key = 'currency'").first ?? "EUR"
    }

    /// Whether the file has an ordinary table of that name (an older schema may not).
    func hasTable(_ name: String) throws -> Bool {
        try !database.strings("SELECT name FROM sqlite_schema WHERE type = 'table' AND name = ?", .text(name)).isEmpty
    }

    func count(_ table: String) throws -> Int {
        Int(try database.scalarInt("SELECT count(*) FROM \(table)") ?? 0)
    }
}
