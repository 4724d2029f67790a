import IngestCore
import IngestSnapshot

/// The `items` table in the making: one row per aptcode sold anywhere.
///
/// Feeds describe the same item more than once and not always alike. The rule
/// is deterministic because feeds arrive in pharmacy-id order: the first feed
/// to mention an item gives its fields, later feeds only fill fields it left
/// empty.
struct ItemCatalog {
    private(set) var items: [String: ItemRow] = [:]

    /// What the writer needs to know of the item before this offer.
    struct Known {
        /// False on the item's first mention.
        var existed: Bool
        var packageCode: String?
    }

    /// One hash lookup per offer. An item already known is only read unless
    /// this offer fills one of its empty fields: with 500 pharmacies, nearly
    /// every offer is of a known item and copying its row each time was a
    /// visible share of the writer's time.
    @discardableResult
    mutating func add(_ offer: StockOffer) -> Known {
        guard let index = items.index(forKey: offer.aptcode) else {
            items[offer.aptcode] = ItemRow(
                aptcode: offer.aptcode, packageCode: offer.packageCode, gtin: offer.gtin, name: offer.name,
                producer: offer.producer, atc: offer.atc, activeSubstance: offer.activeSubstance)
            return Known(existed: false, packageCode: nil)
        }
        let packageCode = items.values[index].packageCode
        if Self.fills(items.values[index], from: offer) {
            items.values[index].packageCode = packageCode ?? offer.packageCode
            items.values[index].gtin = items.values[index].gtin ?? offer.gtin
            items.values[index].producer = items.values[index].producer ?? offer.producer
            items.values[index].atc = items.values[index].atc ?? offer.atc
            items.values[index].activeSubstance = items.values[index].activeSubstance ?? offer.activeSubstance
        }
        return Known(existed: true, packageCode: packageCode)
    }

    @inline(__always)
    private static func fills(_ known: ItemRow, from offer: StockOffer) -> Bool {
        (known.packageCode == nil && offer.packageCode != nil) || (known.gtin == nil && offer.gtin != nil)
            || (known.producer == nil && offer.producer != nil) || (known.atc == nil && offer.atc != nil)
            || (known.activeSubstance == nil && offer.activeSubstance != nil)
    }

    /// An item kept from the previous snapshot (its pharmacy was carried over).
    mutating func add(_ item: ItemRow) {
        if items[item.aptcode] == nil { items[item.aptcode] = item }
    }

    /// Rows in primary-key (byte) order, for an ordered insert.
    func sortedRows() -> [ItemRow] {
        items.values.sorted { precedesInByteOrder($0.aptcode, $1.aptcode) }
    }
}
