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
        /// The item's and the pharmacy's names in the new snapshot, for a person reading the list.
        public var itemName: String?
        public var pharmacyName: String?

        /// Written by hand: `percent` is derived, and absent names are `null`.
        enum CodingKeys: String, CodingKey {
            case aptcode, percent
            case pharmacyID = "pharmacy_id", oldCents = "old_cents", newCents = "new_cents"
            case itemName = "item_name", pharmacyName = "pharmacy_name"
        }

        public init(pharmacyID: String, aptcode: String, oldCents: Int64, newCents: Int64, itemName: String? = nil, pharmacyName: String? = nil) {
            self.pharmacyID = pharmacyID
            self.aptcode = aptcode
            self.oldCents = oldCents
            self.newCents = newCents
            self.itemName = itemName
            self.pharmacyName = pharmacyName
        }

        /// The change against the old price in percent, one decimal; nil from a price of 0.
        public var percent: Double? {
            guard oldCents != 0 else { return nil }
            return (Double(newCents - oldCents) * 1000 / Double(oldCents)).rounded() / 10
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(pharmacyID: try container.decode(String.self, forKey: .pharmacyID), aptcode: try container.decode(String.self, forKey: .aptcode),
                      oldCents: try container.decode(Int64.self, forKey: .oldCents), newCents: try container.decode(Int64.self, forKey: .newCents),
                      itemName: try container.decodeIfPresent(String.self, forKey: .itemName),
                      pharmacyName: try container.decodeIfPresent(String.self, forKey: .pharmacyName))
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(pharmacyID, forKey: .pharmacyID)
            try container.encode(aptcode, forKey: .aptcode)
            try container.encode(oldCents, forKey: .oldCents)
            try container.encode(newCents, forKey: .newCents)
            try container.encode(itemName, forKey: .itemName)
            try container.encode(pharmacyName, forKey: .pharmacyName)
            try container.encode(percent, forKey: .percent)
        }
    }

    /// How many offers' prices moved by how much: every changed offer counted,
    /// in bounded memory, for a histogram. Buckets by the change in percent
    /// against the old price, `from` inclusive, `to` exclusive (nil: open).
    public struct PriceChangeBucket: Sendable, Codable, Equatable {
        @NullEncoded public var fromPercent: Double?
        @NullEncoded public var toPercent: Double?
        public var count: Int

        enum CodingKeys: String, CodingKey {
            case count
            case fromPercent = "from_percent", toPercent = "to_percent"
        }

        /// The edges between buckets; a price from 0 counts in the last.
        static let edges: [Double] = [-50, -20, -10, -5, -1, 0, 1, 5, 10, 20, 50]

        static var empty: [PriceChangeBucket] {
            let bounds: [Double?] = [nil] + edges.map { $0 } + [nil]
            return (0..<(bounds.count - 1)).map { PriceChangeBucket(fromPercent: bounds[$0], toPercent: bounds[$0 + 1], count: 0) }
        }

        /// The bucket of a change of `percent` (nil: from a price of 0).
        static func index(of percent: Double?) -> Int {
            guard let percent else { return edges.count }
            return edges.firstIndex { percent < $0 } ?? edges.count
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
    /// Every price change, counted by how far it moved.
    public var priceChangeHistogram: [PriceChangeBucket] = PriceChangeBucket.empty
    public var limitPriceChanges = 0
    public var reimbursementChanges: [ReimbursementChange] = []

    enum CodingKeys: String, CodingKey {
        case from, to
        case pharmaciesAdded = "pharmacies_added", pharmaciesRemoved = "pharmacies_removed", pharmaciesGoneStale = "pharmacies_gone_stale"
        case itemsAdded = "items_added", itemsRemoved = "items_removed"
        case itemsAddedSample = "items_added_sample", itemsRemovedSample = "items_removed_sample"
        case offersAdded = "offers_added", offersRemoved = "offers_removed", priceChanges = "price_changes"
        case largestPriceChanges = "largest_price_changes", limitPriceChanges = "limit_price_changes"
        case priceChangeHistogram = "price_change_histogram"
        case reimbursementChanges = "reimbursement_changes"
    }

    /// The changes from `old` to `new` (paths of snapshot files), with a pass of their own over both offers tables.
    public static func compute(old: String, oldLabel: String, new: String, newLabel: String, sample: Int = 10) throws -> SnapshotDiff {
        let database = try SQLiteDatabase(path: new, readOnly: true) // closed when it goes, also on an error
        try database.execute("ATTACH DATABASE '\(old.replacingOccurrences(of: "'", with: "''"))' AS old")
        var tally = OfferTally(sample: sample)
        (tally.added, tally.removed) = try forEachChange(in: database) { tally.count($0, limitChanged: $1) }
        return try compute(in: database, from: oldLabel, to: newLabel, offers: tally)
    }

    /// The changes between `main` and the snapshot attached as `old` of
    /// `database`, the offers' already counted (`offers`: by
    /// `forEachChange`, or by the night's own merge as it writes the changeset).
    public static func compute(in database: SQLiteDatabase, from oldLabel: String, to newLabel: String, offers: OfferTally) throws -> SnapshotDiff {
        let sample = offers.sample
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
        diff.offersAdded = offers.added
        diff.offersRemoved = offers.removed
        diff.priceChanges = offers.priceChanges
        diff.limitPriceChanges = offers.limitPriceChanges
        diff.priceChangeHistogram = offers.histogram
        diff.largestPriceChanges = offers.largest

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

    /// Every offer both snapshots hold whose price or limit price differs,
    /// with its item's and pharmacy's names, one at a time (`database` is
    /// the new snapshot with the old one attached as `old`): what a report
    /// needs to show all changes in bounded memory. `limitChanged`: the
    /// limit price moved too, or alone. Returns how many offers only the new
    /// snapshot holds (added) and only the old one (removed).
    ///
    /// A merge of the two tables read in key order, each a sequential scan of
    /// its b-tree: a lookup per offer in the other table (`NOT EXISTS`, a
    /// join) took 4–12 s on a national snapshot, the merge one pass.
    @discardableResult
    public static func forEachChange(in database: SQLiteDatabase,
                                     _ body: (PriceChange, _ limitChanged: Bool) throws -> Void) throws -> (added: Int, removed: Int) {
        let scan = { (schema: String) in "SELECT pharmacy_id, aptcode, price_cents, limit_price_cents FROM \(schema).offers ORDER BY pharmacy_id, aptcode" }
        let new = try database.prepare(scan("main"))
        let old = try database.prepare(scan("old"))
        let names = try database.prepare("SELECT (SELECT name FROM main.items WHERE aptcode = ?1), (SELECT name FROM main.pharmacies WHERE id = ?2)")
        var (hasNew, hasOld) = (try new.step(), try old.step())
        var (added, removed) = (0, 0)
        while hasNew || hasOld {
            let order = !hasOld ? -1 : !hasNew ? 1 : keyOrder(new, old)
            if order < 0 {
                added += 1
                hasNew = try new.step()
                continue
            }
            if order > 0 {
                removed += 1
                hasOld = try old.step()
                continue
            }
            // SQL's `IS NOT`: NULL against NULL is no change.
            let limitChanged = old.isNull(3) != new.isNull(3) || (!old.isNull(3) && old.int64(3) != new.int64(3))
            if old.int64(2) != new.int64(2) || limitChanged {
                let (pharmacyID, aptcode) = (new.string(0) ?? "", new.string(1) ?? "")
                names.reset()
                try names.bind(aptcode, at: 1)
                try names.bind(pharmacyID, at: 2)
                let named = try names.step()
                try body(PriceChange(pharmacyID: pharmacyID, aptcode: aptcode, oldCents: old.int64(2), newCents: new.int64(2),
                                     itemName: named ? names.string(0) : nil, pharmacyName: named ? names.string(1) : nil), limitChanged)
            }
            (hasNew, hasOld) = (try new.step(), try old.step())
        }
        return (added, removed)
    }

    /// The offers' part of a diff, counted one changed offer at a time in
    /// bounded memory: every change bucketed, the largest kept.
    public struct OfferTally: Sendable {
        public let sample: Int
        public var added = 0
        public var removed = 0
        var priceChanges = 0
        var limitPriceChanges = 0
        var histogram = PriceChangeBucket.empty
        private var kept: [PriceChange] = []

        public init(sample: Int = 10) { self.sample = sample }

        /// An offer both snapshots hold whose price or limit price (`limitChanged`) differs.
        public mutating func count(_ change: PriceChange, limitChanged: Bool) {
            if limitChanged { limitPriceChanges += 1 }
            guard change.oldCents != change.newCents else { return }
            priceChanges += 1
            histogram[PriceChangeBucket.index(of: change.percent)].count += 1
            kept.append(change)
            if kept.count > sample * 4 { kept = Array(kept.sorted(by: SnapshotDiff.larger).prefix(sample)) }
        }

        var largest: [PriceChange] { Array(kept.sorted(by: SnapshotDiff.larger).prefix(sample)) }

        /// Adds what another tally counted over other rows (the other half
        /// of a table merged on two threads). `larger` orders every change,
        /// so the largest kept are the same whichever half saw them.
        public mutating func absorb(_ other: OfferTally) {
            added += other.added
            removed += other.removed
            priceChanges += other.priceChanges
            limitPriceChanges += other.limitPriceChanges
            for index in histogram.indices { histogram[index].count += other.histogram[index].count }
            kept = Array((kept + other.kept).sorted(by: SnapshotDiff.larger).prefix(sample))
        }
    }

    /// The order of the two rows' keys (pharmacy id, then aptcode), as SQLite's BINARY collation sorts them.
    private static func keyOrder(_ a: SQLiteStatement, _ b: SQLiteStatement) -> Int {
        for column: Int32 in 0...1 {
            let order = byteOrder(a.textBytes(column), b.textBytes(column))
            if order != 0 { return order }
        }
        return 0
    }

    static func larger(_ a: PriceChange, _ b: PriceChange) -> Bool {
        let (da, db) = (abs(a.newCents - a.oldCents), abs(b.newCents - b.oldCents))
        return da != db ? da > db : (a.pharmacyID, a.aptcode) < (b.pharmacyID, b.aptcode)
    }
}
