import IngestCore
import IngestSnapshot

/// The `items` table in the making: one row per aptcode sold anywhere.
///
/// Feeds describe the same item more than once and not always alike. The rule
/// is deterministic because feeds arrive in pharmacy-id order: the first feed
/// to mention an item gives its fields, later feeds only fill fields it left
/// empty. It holds across nights (SNAPSHOT.md, "Across nights and
/// versions"): yesterday's snapshot is the first mention of every item it
/// held, so its row is the base tonight's feeds fill, and a field once known
/// is never lost because tonight's first feed (an older format, a carried
/// pharmacy taken after a fresh one) does not give it.
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
    /// Yesterday's row of an item (`current`'s `items`), asked once, at the
    /// item's first mention tonight; nil on a first night.
    private let yesterday: ((String) throws -> ItemRow?)?

    init(overflow: ItemOverflow? = nil, limit: Int = 100_000, yesterday: ((String) throws -> ItemRow?)? = nil) {
        self.overflow = overflow
        self.limit = max(1, limit)
        self.yesterday = yesterday
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
        static let all: FillableFields = [.packageCode, .gtin, .producer, .atc, .activeSubstance]

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
            if let known = try yesterday?(offer.aptcode) {
                // Yesterday's row is the first mention; this offer fills its gaps.
                try append(known)
                fill(positions[offer.aptcode]!, from: offer)
                return Known(existed: false, packageCode: known.packageCode)
            }
            try append(ItemRow(
                aptcode: offer.aptcode, packageCode: offer.packageCode, gtin: offer.gtin, name: offer.name,
                producer: offer.producer, atc: offer.atc, activeSubstance: offer.activeSubstance))
            return Known(existed: false, packageCode: nil)
        }
        let packageCode = rows[position].packageCode
        fill(position, from: offer)
        return Known(existed: true, packageCode: packageCode)
    }

    private mutating func fill(_ position: Int, from offer: StockOffer) {
        fill(position, FillableFields(presentIn: offer), packageCode: offer.packageCode, gtin: offer.gtin, producer: offer.producer,
             atc: offer.atc, activeSubstance: offer.activeSubstance)
    }

    /// Sets the fields of `present` that the row at `position` still lacks.
    private mutating func fill(_ position: Int, _ present: FillableFields, packageCode: String?, gtin: String?, producer: String?,
                               atc: String?, activeSubstance: String?) {
        let fills = missing[position].intersection(present)
        guard !fills.isEmpty else { return }
        if fills.contains(.packageCode) { rows[position].packageCode = packageCode }
        if fills.contains(.gtin) { rows[position].gtin = gtin }
        if fills.contains(.producer) { rows[position].producer = producer }
        if fills.contains(.atc) { rows[position].atc = atc }
        if fills.contains(.activeSubstance) { rows[position].activeSubstance = activeSubstance }
        missing[position].subtract(fills)
    }

    /// An item of a carried pharmacy, as yesterday's snapshot holds it: new
    /// tonight, it comes as it was; already mentioned tonight (its row then
    /// began from yesterday's too), it fills what is still empty.
    mutating func add(_ item: ItemRow) throws {
        var found = positions[item.aptcode]
        if found == nil, overflowed, let stored = try overflow?.row(item.aptcode) {
            try append(stored)
            found = positions[item.aptcode]
        }
        guard let position = found else { return try append(item) }
        fill(position, FillableFields(missingIn: item).symmetricDifference(.all), packageCode: item.packageCode, gtin: item.gtin,
             producer: item.producer, atc: item.atc, activeSubstance: item.activeSubstance)
        if rows[position].infoURL == nil { rows[position].infoURL = item.infoURL }
        if rows[position].imageURL == nil { rows[position].imageURL = item.imageURL }
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
