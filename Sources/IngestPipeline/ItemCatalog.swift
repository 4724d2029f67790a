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

    /// Returns the item as it was known before this offer (nil: first mention),
    /// so the writer needs one lookup per offer, not two.
    @discardableResult
    mutating func add(_ offer: StockOffer) -> ItemRow? {
        if var known = items[offer.aptcode] {
            let before = known
            var changed = false
            func fill(_ field: WritableKeyPath<ItemRow, String?>, _ value: String?) {
                if known[keyPath: field] == nil, let value {
                    known[keyPath: field] = value
                    changed = true
                }
            }
            fill(\.packageCode, offer.packageCode)
            fill(\.gtin, offer.gtin)
            fill(\.producer, offer.producer)
            fill(\.atc, offer.atc)
            fill(\.activeSubstance, offer.activeSubstance)
            if changed { items[offer.aptcode] = known }
            return before
        } else {
            items[offer.aptcode] = ItemRow(
                aptcode: offer.aptcode, packageCode: offer.packageCode, gtin: offer.gtin, name: offer.name,
                producer: offer.producer, atc: offer.atc, activeSubstance: offer.activeSubstance)
            return nil
        }
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
