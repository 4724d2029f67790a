import Foundation
import IngestCore
import IngestSnapshot

/// What changes between two snapshots: the dry-run report's answer to
/// "what would this run change", and `ingest snapshots diff A B`.
/// Computed in SQLite with the old snapshot attached to the new one.
public struct SnapshotDiff: Sendable, Codable, Equatable {
    public struct PriceChange: Sendable, Codable, Equatable {
        public var pharmacyID: String
        public var aptcode: String
        public var oldCents: Int64
        public var newCents: Int64
        enum CodingKeys: String, CodingKey {
            case aptcode
            case pharmacyID = "pharmacy_id", oldCents = "old_cents", newCents = "new_cents"
        }
    }

    public struct ReimbursementChange: Sendable, Codable, Equatable {
        public var packageCode: String
        public var rate: Int
        /// `added`, `removed` or `limit_changed`.
        public var change: String
        @NullEncoded public var oldLimitCents: Int64?
        @NullEncoded public var newLimitCents: Int64?
        enum CodingKeys: String, CodingKey {
            case rate, change
            case packageCode = "package_code", oldLimitCents = "old_limit_cents", newLimitCents = "new_limit_cents"
        }
    }

    public var from: String
    public var to: String
    public var pharmaciesAdded: [String] = []
    public var pharmaciesRemoved: [String] = []
    public var pharmaciesGoneStale: [String] = []
    public var itemsAdded = 0
    public var itemsRemoved = 0
    public var itemsAddedSample: [String] = []
    public var itemsRemovedSample: [String] = []
    public var offersAdded = 0
    public var offersRemoved = 0
    public var priceChanges = 0
    /// The largest changes by absolute amount.
    public var largestPriceChanges: [PriceChange] = []
    public var limitPriceChanges = 0
    public var reimbursementChanges: [ReimbursementChange] = []

    enum CodingKeys: String, CodingKey {
        case from, to
        case pharmaciesAdded = "pharmacies_added", pharmaciesRemoved = "pharmacies_removed", pharmaciesGoneStale = "pharmacies_gone_stale"
        case itemsAdded = "items_added", itemsRemoved = "items_removed"
        case itemsAddedSample = "items_added_sample", itemsRemovedSample = "items_removed_sample"
        case offersAdded = "offers_added", offersRemoved = "offers_removed", priceChanges = "price_changes"
        case largestPriceChanges = "largest_price_changes", limitPriceChanges = "limit_price_changes"
        case reimbursementChanges = "reimbursement_changes"
    }

    /// The changes from `old` to `new` (paths of snapshot files).
    public static func compute(old: String, oldLabel: String, new: String, newLabel: String, sample: Int = 10) throws -> SnapshotDiff {
        let database = try SQLiteDatabase(path: new, readOnly: true) // closed when it goes, also on an error
        try database.execute("ATTACH DATABASE '\(old.replacingOccurrences(of: "'", with: "''"))' AS old")
        var diff = SnapshotDiff(from: oldLabel, to: newLabel)
        diff.pharmaciesAdded = try database.strings("SELECT id FROM main.pharmacies WHERE id NOT IN (SELECT id FROM old.pharmacies) ORDER BY id")
        diff.pharmaciesRemoved = try database.strings("SELECT id FROM old.pharmacies WHERE id NOT IN (SELECT id FROM main.pharmacies) ORDER BY id")
        diff.pharmaciesGoneStale = try database.strings("""
            SELECT n.id FROM main.pharmacies n JOIN old.pharmacies o ON o.id = n.id WHERE n.stale = 1 AND o.stale = 0 ORDER BY n.id
            """)
        let itemsAdded = "FROM main.items n WHERE NOT EXISTS (SELECT 1 FROM old.items o WHERE o.aptcode = n.aptcode)"
        let itemsRemoved = "FROM old.items o WHERE NOT EXISTS (SELECT 1 FROM main.items n WHERE n.aptcode = o.aptcode)"
        diff.itemsAdded = Int(try database.scalarInt("SELECT count(*) \(itemsAdded)") ?? 0)
        diff.itemsRemoved = Int(try database.scalarInt("SELECT count(*) \(itemsRemoved)") ?? 0)
        diff.itemsAddedSample = try database.strings("SELECT n.aptcode \(itemsAdded) ORDER BY n.aptcode LIMIT \(sample)")
        diff.itemsRemovedSample = try database.strings("SELECT o.aptcode \(itemsRemoved) ORDER BY o.aptcode LIMIT \(sample)")
        diff.offersAdded = Int(try database.scalarInt("""
            SELECT count(*) FROM main.offers n WHERE NOT EXISTS
              (SELECT 1 FROM old.offers o WHERE o.pharmacy_id = n.pharmacy_id AND o.aptcode = n.aptcode)
            """) ?? 0)
        diff.offersRemoved = Int(try database.scalarInt("""
            SELECT count(*) FROM old.offers o WHERE NOT EXISTS
              (SELECT 1 FROM main.offers n WHERE n.pharmacy_id = o.pharmacy_id AND n.aptcode = o.aptcode)
            """) ?? 0)

        // One pass over the offers both have: count changes, keep the largest.
        let changes = try database.prepare("""
            SELECT n.pharmacy_id, n.aptcode, o.price_cents, n.price_cents, o.limit_price_cents IS NOT n.limit_price_cents
            FROM main.offers n JOIN old.offers o ON o.pharmacy_id = n.pharmacy_id AND o.aptcode = n.aptcode
            WHERE o.price_cents != n.price_cents OR o.limit_price_cents IS NOT n.limit_price_cents
            """)
        var largest: [PriceChange] = []
        while try changes.step() {
            if changes.int64(4) != 0 { diff.limitPriceChanges += 1 }
            let change = PriceChange(pharmacyID: changes.string(0) ?? "", aptcode: changes.string(1) ?? "",
                                     oldCents: changes.int64(2), newCents: changes.int64(3))
            guard change.oldCents != change.newCents else { continue }
            diff.priceChanges += 1
            largest.append(change)
            if largest.count > sample * 4 { largest = Array(largest.sorted(by: Self.larger).prefix(sample)) }
        }
        diff.largestPriceChanges = Array(largest.sorted(by: Self.larger).prefix(sample))

        let tiers = try database.prepare("""
            SELECT n.package_code, n.rate, 'added', NULL, n.limit_price_cents FROM main.reimbursements n
              WHERE NOT EXISTS (SELECT 1 FROM old.reimbursements o WHERE o.package_code = n.package_code AND o.rate = n.rate)
            UNION ALL
            SELECT o.package_code, o.rate, 'removed', o.limit_price_cents, NULL FROM old.reimbursements o
              WHERE NOT EXISTS (SELECT 1 FROM main.reimbursements n WHERE n.package_code = o.package_code AND n.rate = o.rate)
            UNION ALL
            SELECT n.package_code, n.rate, 'limit_changed', o.limit_price_cents, n.limit_price_cents
              FROM main.reimbursements n JOIN old.reimbursements o ON o.package_code = n.package_code AND o.rate = n.rate
              WHERE o.limit_price_cents IS NOT n.limit_price_cents
            ORDER BY 1, 2
            """)
        while try tiers.step() {
            diff.reimbursementChanges.append(ReimbursementChange(
                packageCode: tiers.string(0) ?? "", rate: Int(tiers.int64(1)), change: tiers.string(2) ?? "",
                oldLimitCents: tiers.isNull(3) ? nil : tiers.int64(3), newLimitCents: tiers.isNull(4) ? nil : tiers.int64(4)))
        }
        return diff
    }

    private static func larger(_ a: PriceChange, _ b: PriceChange) -> Bool {
        let (da, db) = (abs(a.newCents - a.oldCents), abs(b.newCents - b.oldCents))
        return da != db ? da > db : (a.pharmacyID, a.aptcode) < (b.pharmacyID, b.aptcode)
    }
}
