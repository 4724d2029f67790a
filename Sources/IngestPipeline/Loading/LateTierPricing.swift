import IngestCore
import IngestSnapshot

/// Offers written before their item's package code was known: a pharmacy's
/// feed names an item without its package code, a later pharmacy's feed
/// brings the code, and the earlier offers were written without tier
/// prices. Noted while offers are written, priced once at the end. Memory
/// grows with such items, never with offers.
struct LateTierPricing {
    /// Each item, and the index (into the loader's pharmacies) of the
    /// pharmacy that brought its code: the pharmacies before it wait.
    private(set) var pending: [(aptcode: String, before: Int)] = []

    mutating func note(_ aptcode: String, before pharmacyIndex: Int) {
        pending.append((aptcode, pharmacyIndex))
    }

    /// The tier prices of the waiting offers, by pharmacy and item in byte
    /// order (the order the writer updates them in): each priced with the
    /// list in force on its pharmacy's export date. `offer` reads an offer
    /// as written; `packageCode` gives the item's code now known.
    func updates(pharmacies: [PharmacyRow], pricer: TierPricer, offer: (_ pharmacyID: String, _ aptcode: String) throws -> OfferRow?,
                 packageCode: (String) throws -> String?) throws -> [(pharmacyID: String, row: OfferRow)] {
        var updates: [(pharmacyID: String, row: OfferRow)] = []
        for (aptcode, before) in pending {
            for pharmacy in pharmacies[..<before] {
                guard var row = try offer(pharmacy.id, aptcode), row.limitPriceCents == nil,
                      let date = ExportTimestamp.parseISO8601(pharmacy.lastRefresh)?.localDate else { continue }
                if pricer.price(&row, packageCode: try packageCode(aptcode), exportDate: date) { updates.append((pharmacy.id, row)) }
            }
        }
        updates.sort {
            $0.pharmacyID.utf8.lexicographicallyPrecedes($1.pharmacyID.utf8)
                || ($0.pharmacyID == $1.pharmacyID && $0.row.aptcode.utf8.lexicographicallyPrecedes($1.row.aptcode.utf8))
        }
        return updates
    }
}
