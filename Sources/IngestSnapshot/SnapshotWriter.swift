import IngestCore
import Foundation

/// Builds one snapshot file: schema, bulk load in a single transaction through
/// statements prepared once, then the derived tables and indexes.
///
/// Tuned for a file nobody reads until it is published: no journal, no sync
/// (the publisher fsyncs the finished file before renaming it into place).
/// Offers must arrive in primary-key order (pharmacy id, then aptcode, both
/// by byte order); the writer checks it, because unsorted inserts are 2–4×
/// slower and a silent slowdown is worse than a loud bug.
public final class SnapshotWriter {
    public let database: SQLiteDatabase
    /// Whole groups of `OfferBatchInsert.batchRows` offers go through
    /// `insertOffers`, the rest of a pharmacy's offers through `insertOffer`.
    /// Released in `close()`: a live statement would keep the connection (and its exclusive lock) open.
    private var insertOffers: OfferBatchInsert?
    private var insertOffer: OfferBatchInsert?
    private var lastOfferKey: (pharmacy: String, aptcode: String)?
    /// Counted on the way in, so `finish()` can give the planner the offers'
    /// statistics without an ANALYZE pass over millions of rows.
    private var offerCount = 0
    private var offerPharmacyCount = 0
    private var itemCount = 0
    /// Every offer inserted (and not deleted since), for the check before publishing.
    public private(set) var offersDigest = TableDigest()
    private var loadCommitted = false

    public struct OutOfOrder: Error, CustomStringConvertible {
        public let previous: String
        public let next: String
        public var description: String { "offers arrived out of key order: \(next) after \(previous)" }
    }

    public let schema: SnapshotSchema

    /// A new snapshot file at `path` with `schema`'s tables (the core tables
    /// alone unless told: the pipeline adds its reference kinds').
    public init(path: String, schema: SnapshotSchema = SnapshotSchema(adding: [])) throws {
        self.schema = schema
        database = try SQLiteDatabase(path: path)
        try database.execute("""
            PRAGMA journal_mode = OFF;
            PRAGMA synchronous = OFF;
            PRAGMA page_size = 4096;
            PRAGMA cache_size = -16384;
            PRAGMA locking_mode = EXCLUSIVE;
            PRAGMA application_id = \(SnapshotSchema.applicationID);
            PRAGMA user_version = \(SnapshotSchema.version);
            """)
        try database.execute(schema.createSQL)
        try database.execute("BEGIN")
        insertOffers = try OfferBatchInsert(database: database, rows: OfferBatchInsert.batchRows)
        insertOffer = try OfferBatchInsert(database: database, rows: 1)
    }

    /// One pharmacy's offers, sorted by aptcode; pharmacies in id order.
    public func writeOffers(pharmacyID: String, _ offers: [OfferRow]) throws {
        guard let insertOffers, let insertOffer else { throw SQLiteError(.misuse, message: "the snapshot writer is closed") }
        // By index: `for offer in` would copy every row out of the array.
        var previous = lastOfferKey
        for index in offers.indices {
            let aptcode = offers[index].aptcode
            if let last = previous, !Self.precedes(last.pharmacy, last.aptcode, pharmacyID, aptcode) {
                throw OutOfOrder(previous: "\(last.pharmacy)/\(last.aptcode)", next: "\(pharmacyID)/\(aptcode)")
            }
            previous = (pharmacyID, aptcode)
        }
        let batched = offers.count / insertOffers.rows * insertOffers.rows
        for start in stride(from: 0, to: batched, by: insertOffers.rows) {
            try insertOffers.write(pharmacyID: pharmacyID, offers[start..<start + insertOffers.rows])
        }
        for index in batched..<offers.count {
            try insertOffer.write(pharmacyID: pharmacyID, offers[index...index])
        }
        for index in offers.indices {
            offersDigest.add(TableDigest.offer(pharmacyID: pharmacyID, aptcode: offers[index].aptcode, priceCents: offers[index].priceCents))
        }
        // A pharmacy's offers may come in several batches: it counts once.
        if !offers.isEmpty, lastOfferKey?.pharmacy != pharmacyID { offerPharmacyCount += 1 }
        lastOfferKey = previous
        offerCount += offers.count
    }

    /// Removes a pharmacy already written (found afterwards to be another's
    /// copy); `insertOffers` may then put other offers in their place, out of key order (rare).
    public func deleteOffers(pharmacyID: String) throws {
        let rows = try database.cachedStatement("SELECT aptcode, price_cents FROM offers WHERE pharmacy_id = ?")
        try rows.bind(pharmacyID, at: 1)
        var removed: [TableDigest.Row] = []
        while try rows.step() {
            removed.append(TableDigest.offer(pharmacyID: pharmacyID, aptcode: rows.string(0) ?? "", priceCents: rows.int64(1)))
        }
        rows.reset()
        let delete = try database.cachedStatement("DELETE FROM offers WHERE pharmacy_id = ?")
        try delete.run(.text(pharmacyID))
        // Taken out of the digest only once they are out of the file.
        for row in removed { offersDigest.remove(row) }
        let before = removed.count
        offerCount -= before
        if before > 0 { offerPharmacyCount -= 1 }
    }

    /// Offers of a pharmacy deleted with `deleteOffers`, in batches, out of the key order of the load.
    public func insertOffers(pharmacyID: String, _ offers: [OfferRow]) throws {
        guard let insertOffer else { throw SQLiteError(.misuse, message: "the snapshot writer is closed") }
        let count = try database.cachedStatement("SELECT count(*) FROM offers WHERE pharmacy_id = ?")
        try count.bind(pharmacyID, at: 1)
        let before = try count.step() ? count.int64(0) : 0
        count.reset()
        for index in offers.indices {
            try insertOffer.write(pharmacyID: pharmacyID, offers[index...index])
            offersDigest.add(TableDigest.offer(pharmacyID: pharmacyID, aptcode: offers[index].aptcode, priceCents: offers[index].priceCents))
        }
        offerCount += offers.count
        if before == 0, !offers.isEmpty { offerPharmacyCount += 1 }
    }

    /// SQLite's BINARY collation is byte order, which is Swift's `<` on UTF-8.
    static func precedes(_ p1: String, _ a1: String, _ p2: String, _ a2: String) -> Bool {
        if p1 == p2 { return precedesInByteOrder(a1, a2) }
        return precedesInByteOrder(p1, p2)
    }

    public func writeItems(_ items: [ItemRow]) throws {
        let insert = try database.cachedStatement("""
            INSERT INTO items(aptcode, package_code, gtin, name, producer, atc, active_substance, info_url, image_url)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        itemCount += items.count
        for item in items {
            try insert.run(.text(item.aptcode), .text(item.packageCode), .text(item.gtin), .text(item.name), .text(item.producer),
                           .text(item.atc), .text(item.activeSubstance), .text(item.infoURL), .text(item.imageURL))
        }
    }

    public func writePharmacies(_ pharmacies: [PharmacyRow]) throws {
        let insert = try database.cachedStatement("""
            INSERT INTO pharmacies(id, name, chain_id, region, address, phone, open_hours,
                                   latitude, longitude, last_refresh, item_count, stale, loaded_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let insertHours = try database.cachedStatement("INSERT OR IGNORE INTO pharmacy_hours(pharmacy_id, weekday, opens, closes) VALUES (?, ?, ?, ?)")
        for pharmacy in pharmacies {
            // Free text stays only in open_hours (its warning is the registry's, `PharmacyRegistrySet`).
            if case .success(let hours?) = OpeningHours.parse(pharmacy.openHours ?? "") {
                for interval in hours.intervals {
                    try insertHours.run(.text(pharmacy.id), .int(Int64(interval.weekday)), .text(OpeningHours.clock(interval.opens)),
                                        .text(OpeningHours.clock(interval.closes)))
                }
            }
            try insert.run(.text(pharmacy.id), .text(pharmacy.name), .text(pharmacy.chainID), .text(pharmacy.region),
                           .text(pharmacy.address), .text(pharmacy.phone), .text(pharmacy.openHours), .real(pharmacy.latitude),
                           .real(pharmacy.longitude), .text(pharmacy.lastRefresh), .int(Int64(pharmacy.itemCount)),
                           .int(pharmacy.stale ? 1 : 0), .text(pharmacy.loadedAt))
        }
    }

    public func writeMeta(_ entries: [String: String]) throws {
        let insert = try database.cachedStatement("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)")
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) { try insert.run(.text(key), .text(value)) }
    }

    /// Commits the load and freezes `offers`: from here on this connection
    /// refuses to write it, so the publish check may scan it
    /// (`EarlyTableScan`) while `finish()` builds the indexes, on the core
    /// the index build leaves idle. Called by `finish()` when not before.
    public func commitLoad() throws {
        guard !loadCommitted else { return }
        try database.execute("COMMIT")
        loadCommitted = true
        try database.freeze(table: "offers")
        try database.execute("BEGIN")
    }

    /// Builds the indexes and the search indexes (from `items`, their
    /// content table) on the committed load, then gives the query planner its statistics.
    ///
    /// The index sort runs on two threads (`PRAGMA threads`). ANALYZE reads
    /// every table but `offers`; for `offers` the counts kept while writing
    /// are exact (rows, rows per pharmacy, rows per item) and an ANALYZE of
    /// five million rows would cost a second for the same numbers.
    public func finish() throws {
        try commitLoad()
        try database.execute("PRAGMA threads = 2")
        // The index sort spills runs of `cache_size` bytes. Runs of 8 MB sort
        // faster than 16 MB ones (the load's cache), in half the memory:
        // CREATE INDEX offers_by_item on the bench snapshot, sqlite3 3.40,
        // three runs each, 2.0-2.75 s against 2.85-3.0 s (4 MB: 2.2-2.35 s).
        try database.execute("PRAGMA cache_size = -8192")
        try database.execute(schema.indexSQL)
        for index in SnapshotSchema.searchIndexNames {
            try database.execute("INSERT INTO \(index)(\(index)) VALUES ('rebuild')")
            try database.execute("INSERT INTO \(index)(\(index)) VALUES ('optimize')")
        }
        try database.execute("COMMIT")
        // ANALYZE of any table creates sqlite_stat1, which takes the offers rows below.
        for table in schema.analysedTables { try database.execute("ANALYZE \(table)") }
        try database.execute("DELETE FROM sqlite_stat1 WHERE tbl = 'offers'")
        guard offerCount > 0 else { return }
        let perPharmacy = (offerCount + offerPharmacyCount - 1) / max(1, offerPharmacyCount)
        let perItem = (offerCount + itemCount - 1) / max(1, itemCount)
        let insert = try database.cachedStatement("INSERT INTO sqlite_stat1(tbl, idx, stat) VALUES ('offers', ?, ?)")
        // Column by column: all rows, then rows sharing the first key column, the first two, …
        try insert.run(.text("offers"), .text("\(offerCount) \(perPharmacy) 1"))
        try insert.run(.text("offers_by_item"), .text("\(offerCount) \(perItem) 1 1"))
    }

    public func rowCounts() throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in schema.countedTables {
            counts[table] = Int(try database.scalarInt("SELECT count(*) FROM \(table)") ?? 0)
        }
        return counts
    }

    /// Releases the statements and closes the file, which must happen
    /// before it is checked and published; throws if a statement leaked.
    public func close() throws(SQLiteError) {
        insertOffers = nil
        insertOffer = nil
        try database.close()
    }
}
