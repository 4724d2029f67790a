import IngestCore
import IngestSnapshot

/// The `items` table in the making: one row per aptcode sold anywhere.
///
/// Feeds describe the same item more than once and not always alike. The rule
/// is deterministic because feeds arrive in pharmacy-id order: the first feed
/// to mention an item gives its fields, later feeds only fill fields it left
/// empty.
///
/// Rows live in an array, found through a dictionary of positions, with a
/// bit set of the fields each row still lacks: with 500 pharmacies nearly
/// every offer is of a known item, and this way such an offer costs one hash
/// lookup and a byte test, never a copy of the row.
///
/// Memory holds at most `limit` rows. Past it, they move to an
/// `ItemOverflow` table with the same merge rule, and a row asked for again
/// comes back from there: a single feed of millions of distinct items costs
/// the table's disk, not gigabytes (a 200 MB Noom feed's 850,000 items were
/// three copies of the catalog in memory, about 400 MB).
struct ItemCatalog {
    private var positions: [String: Int] = [:]
    private var rows: [ItemRow] = []
    private var missing: [FillableFields] = []
    /// Where rows go past `limit`; nil: memory only (tests).
    private let overflow: ItemOverflow?
    private var overflowed = false
    let limit: Int

    init(overflow: ItemOverflow? = nil, limit: Int = 100_000) {
        self.overflow = overflow
        self.limit = max(1, limit)
    }

    /// What the writer needs to know of the item before this offer.
    struct Known {
        /// False on the item's first mention.
        var existed: Bool
        var packageCode: String?
    }

    /// The optional fields a later feed may fill.
    struct FillableFields: OptionSet {
        let rawValue: UInt8
        static let packageCode = FillableFields(rawValue: 1)
        static let gtin = FillableFields(rawValue: 2)
        static let producer = FillableFields(rawValue: 4)
        static let atc = FillableFields(rawValue: 8)
        static let activeSubstance = FillableFields(rawValue: 16)

        /// The fields `row` leaves empty.
        init(missingIn row: ItemRow) {
            var fields: FillableFields = []
            if row.packageCode == nil { fields.insert(.packageCode) }
            if row.gtin == nil { fields.insert(.gtin) }
            if row.producer == nil { fields.insert(.producer) }
            if row.atc == nil { fields.insert(.atc) }
            if row.activeSubstance == nil { fields.insert(.activeSubstance) }
            self = fields
        }

        /// The fields `offer` has a value for.
        init(presentIn offer: StockOffer) {
            var fields: FillableFields = []
            if offer.packageCode != nil { fields.insert(.packageCode) }
            if offer.gtin != nil { fields.insert(.gtin) }
            if offer.producer != nil { fields.insert(.producer) }
            if offer.atc != nil { fields.insert(.atc) }
            if offer.activeSubstance != nil { fields.insert(.activeSubstance) }
            self = fields
        }

        init(rawValue: UInt8) { self.rawValue = rawValue }
    }

    subscript(aptcode: String) -> ItemRow? {
        get throws {
            if let position = positions[aptcode] { return rows[position] }
            return overflowed ? try overflow?.row(aptcode) : nil
        }
    }

    func contains(_ aptcode: String) throws -> Bool { try self[aptcode] != nil }

    /// The package code known for an item, without copying its row.
    func packageCode(of aptcode: String) throws -> String? {
        guard let position = positions[aptcode] else { return try self[aptcode]?.packageCode }
        return rows[position].packageCode
    }

    @discardableResult
    mutating func add(_ offer: StockOffer) throws -> Known {
        var found = positions[offer.aptcode]
        if found == nil, overflowed, let stored = try overflow?.row(offer.aptcode) {
            try append(stored)
            found = positions[offer.aptcode]
        }
        guard let position = found else {
            try append(ItemRow(
                aptcode: offer.aptcode, packageCode: offer.packageCode, gtin: offer.gtin, name: offer.name,
                producer: offer.producer, atc: offer.atc, activeSubstance: offer.activeSubstance))
            return Known(existed: false, packageCode: nil)
        }
        let packageCode = rows[position].packageCode
        let fills = missing[position].intersection(FillableFields(presentIn: offer))
        if !fills.isEmpty {
            if fills.contains(.packageCode) { rows[position].packageCode = offer.packageCode }
            if fills.contains(.gtin) { rows[position].gtin = offer.gtin }
            if fills.contains(.producer) { rows[position].producer = offer.producer }
            if fills.contains(.atc) { rows[position].atc = offer.atc }
            if fills.contains(.activeSubstance) { rows[position].activeSubstance = offer.activeSubstance }
            missing[position].subtract(fills)
        }
        return Known(existed: true, packageCode: packageCode)
    }

    /// An item kept from the previous snapshot (its pharmacy was carried over).
    mutating func add(_ item: ItemRow) throws {
        if try !contains(item.aptcode) { try append(item) }
    }

    private mutating func append(_ row: ItemRow) throws {
        if rows.count >= limit, let overflow { try spill(to: overflow) }
        positions[row.aptcode] = rows.count
        missing.append(FillableFields(missingIn: row))
        rows.append(row)
    }

    /// Memory's rows to the table; they came after what it holds, so they only fill.
    private mutating func spill(to overflow: ItemOverflow) throws {
        try overflow.store(rows)
        rows.removeAll(keepingCapacity: true)
        missing.removeAll(keepingCapacity: true)
        positions.removeAll(keepingCapacity: true)
        overflowed = true
    }

    /// Every row in primary-key (byte) order, for an ordered insert.
    mutating func forEachSorted(_ body: (ItemRow) throws -> Void) throws {
        guard overflowed, let overflow else {
            for row in rows.sorted(by: { precedesInByteOrder($0.aptcode, $1.aptcode) }) { try body(row) }
            return
        }
        try spill(to: overflow)
        try overflow.forEachSorted(body)
    }
}
