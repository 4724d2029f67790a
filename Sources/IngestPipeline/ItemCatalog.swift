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
struct ItemCatalog {
    private var positions: [String: Int] = [:]
    private var rows: [ItemRow] = []
    private var missing: [FillableFields] = []

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

    var count: Int { rows.count }

    subscript(aptcode: String) -> ItemRow? {
        positions[aptcode].map { rows[$0] }
    }

    func contains(_ aptcode: String) -> Bool { positions[aptcode] != nil }

    /// The package code known for an item, without copying its row.
    func packageCode(of aptcode: String) -> String? {
        guard let position = positions[aptcode] else { return nil }
        return rows[position].packageCode
    }

    @discardableResult
    mutating func add(_ offer: StockOffer) -> Known {
        guard let position = positions[offer.aptcode] else {
            append(ItemRow(
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
    mutating func add(_ item: ItemRow) {
        if positions[item.aptcode] == nil { append(item) }
    }

    private mutating func append(_ row: ItemRow) {
        positions[row.aptcode] = rows.count
        missing.append(FillableFields(missingIn: row))
        rows.append(row)
    }

    /// Rows in primary-key (byte) order, for an ordered insert.
    func sortedRows() -> [ItemRow] {
        rows.sorted { precedesInByteOrder($0.aptcode, $1.aptcode) }
    }
}
