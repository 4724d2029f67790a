import IngestCore
import IngestSnapshot

/// The `items` table in the making: one row per aptcode sold anywhere.
///
/// Feeds describe the same item more than once and not always alike. The
/// rule is deterministic because feeds arrive in pharmacy-id order:
/// tonight's first feed to mention an item gives its fields, later feeds
/// only fill fields it left empty, and yesterday's snapshot fills only what
/// tonight's feeds all left empty (SNAPSHOT.md "Across nights", schema 5).
/// So a feed that corrects a name, producer or code tonight is believed, and
/// a field no feed sends tonight stays as it was. An item only carried
/// pharmacies sell is yesterday's row as it was; a carried pharmacy taken
/// before a fresh one does not make yesterday's row the first mention: the
/// fresh feed's replaces it.
///
/// Yesterday's row is looked up twice per item (`current`'s primary key):
/// at the first mention, for the package code that prices tonight's offers
/// until a feed gives one, and when the rows are written, to fill the gaps.
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
    /// Whether each row came from a feed tonight (false: yesterday's row, kept for a carried pharmacy).
    private var tonight: [Bool] = []
    /// Yesterday's package code of each row's item: it prices tonight's
    /// offers (and carried ones) while no feed has given the item one, as it
    /// fills the gap when the rows are written.
    private var yesterdaysPackageCode: [String?] = []
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
            return overflowed ? try overflow?.row(aptcode)?.row : nil
        }
    }

    func contains(_ aptcode: String) throws -> Bool { try self[aptcode] != nil }

    /// The package code known for an item (tonight's feeds', else yesterday's), without copying its row.
    func packageCode(of aptcode: String) throws -> String? {
        guard let position = positions[aptcode] else {
            guard let row = try self[aptcode] else { return nil }
            return try row.packageCode ?? yesterday?(aptcode)?.packageCode
        }
        return rows[position].packageCode ?? yesterdaysPackageCode[position]
    }

    @discardableResult
    mutating func add(_ offer: StockOffer) throws -> Known {
        var found = positions[offer.aptcode]
        if found == nil, overflowed, let stored = try overflow?.row(offer.aptcode) {
            try append(stored.row, tonight: stored.tonight, yesterdaysPackageCode: stored.row.packageCode == nil ? try yesterday?(offer.aptcode)?.packageCode : nil)
            found = positions[offer.aptcode]
        }
        guard let position = found else {
            let yesterdays = offer.packageCode == nil ? try yesterday?(offer.aptcode)?.packageCode : nil
            try append(Self.row(of: offer), tonight: true, yesterdaysPackageCode: yesterdays)
            return Known(existed: false, packageCode: yesterdays)
        }
        let packageCode = rows[position].packageCode ?? yesterdaysPackageCode[position]
        if !tonight[position] {
            // Yesterday's row, there for a carried pharmacy: tonight's first mention replaces it.
            yesterdaysPackageCode[position] = rows[position].packageCode
            rows[position] = Self.row(of: offer, keeping: rows[position])
            missing[position] = FillableFields(missingIn: rows[position])
            tonight[position] = true
            return Known(existed: true, packageCode: packageCode)
        }
        fill(position, from: offer)
        return Known(existed: true, packageCode: packageCode)
    }

    /// An offer's description of its item; `keeping` the leaflet and image of a row it replaces (what no feed gives).
    /// Its text in NFC (READ_API.md, Version 3): search compares composed letters, and the apps show what was matched.
    private static func row(of offer: StockOffer, keeping old: ItemRow? = nil) -> ItemRow {
        ItemRow(aptcode: offer.aptcode, packageCode: offer.packageCode, gtin: offer.gtin, name: CanonicalText.nfc(offer.name),
                producer: CanonicalText.nfc(offer.producer), atc: offer.atc, activeSubstance: CanonicalText.nfc(offer.activeSubstance),
                infoURL: old?.infoURL, imageURL: old?.imageURL)
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
        if fills.contains(.producer) { rows[position].producer = CanonicalText.nfc(producer) }
        if fills.contains(.atc) { rows[position].atc = atc }
        if fills.contains(.activeSubstance) { rows[position].activeSubstance = CanonicalText.nfc(activeSubstance) }
        missing[position].subtract(fills)
    }

    /// An item of a carried pharmacy, as yesterday's snapshot holds it: new
    /// tonight, it comes as it was; already in the catalog, it changes
    /// nothing now (a row from a feed is filled from yesterday's at the end,
    /// after every feed of the night has had its say).
    mutating func add(_ item: ItemRow) throws {
        if positions[item.aptcode] != nil { return }
        if overflowed, try overflow?.row(item.aptcode) != nil { return }
        try append(item, tonight: false, yesterdaysPackageCode: item.packageCode)
    }

    private mutating func append(_ row: ItemRow, tonight fromTonight: Bool, yesterdaysPackageCode yesterdays: String?) throws {
        if rows.count >= limit, let overflow { try spill(to: overflow) }
        positions[row.aptcode] = rows.count
        missing.append(FillableFields(missingIn: row))
        tonight.append(fromTonight)
        yesterdaysPackageCode.append(yesterdays)
        rows.append(row)
    }

    /// Memory's rows to the table; they came after what it holds, so they only fill.
    private mutating func spill(to overflow: ItemOverflow) throws {
        try overflow.store(rows, tonight: tonight)
        rows.removeAll(keepingCapacity: true)
        missing.removeAll(keepingCapacity: true)
        tonight.removeAll(keepingCapacity: true)
        yesterdaysPackageCode.removeAll(keepingCapacity: true)
        positions.removeAll(keepingCapacity: true)
        overflowed = true
    }

    /// Every row in primary-key (byte) order, for an ordered insert, a
    /// row from tonight's feeds with yesterday's filling what they left empty.
    mutating func forEachSorted(_ body: (ItemRow) throws -> Void) throws {
        guard overflowed, let overflow else {
            for position in positions.values.sorted(by: { precedesInByteOrder(rows[$0].aptcode, rows[$1].aptcode) }) {
                try body(tonight[position] ? try filledFromYesterday(rows[position]) : rows[position])
            }
            return
        }
        try spill(to: overflow)
        try overflow.forEachSorted { row, fromTonight in try body(fromTonight ? try filledFromYesterday(row) : row) }
    }

    private func filledFromYesterday(_ row: ItemRow) throws -> ItemRow {
        guard let old = try yesterday?(row.aptcode) else { return row }
        var row = row
        row.packageCode = row.packageCode ?? old.packageCode
        row.gtin = row.gtin ?? old.gtin
        row.producer = row.producer ?? old.producer
        row.atc = row.atc ?? old.atc
        row.activeSubstance = row.activeSubstance ?? old.activeSubstance
        row.infoURL = row.infoURL ?? old.infoURL
        row.imageURL = row.imageURL ?? old.imageURL
        return row
    }
}
