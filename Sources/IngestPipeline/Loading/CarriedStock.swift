import IngestCore
import IngestSnapshot

/// Yesterday's data for a pharmacy tonight did not load: read from
/// `current`, priced with tonight's list (the list in force on its export
/// date), and handed to the writer in batches. Whether it may still be kept
/// is `CarryOverPlan`'s verdict; what the report says of it comes back as a
/// value (`Kept`), for the loader to add.
struct CarriedStock {
    let previous: PreviousSnapshot
    let pricer: TierPricer
    /// Registry details by pharmacy id: tonight's registry wins over yesterday's row.
    let registry: [String: PharmacyRecord]
    /// The run's service-local date: data first loaded by a run of this date counts as tonight's.
    let runDate: String
    /// Offers handed to the writer at a time.
    let batchRows: Int

    /// What keeping a pharmacy gave: its row (nil: dropped), its carry-over
    /// entry, and the warning a drop gives.
    struct Kept {
        var row: PharmacyRow?
        var entry: CarryOver
        var warning: Warning?
    }

    /// The pharmacy's data in `current`, its items added to `items` where
    /// tonight's feeds did not bring them; nil when current does not hold it.
    func keep(_ pharmacyID: String, verdict plan: CarryOverPlan, items: inout ItemCatalog,
              write: ([OfferRow]) throws -> Void) throws -> Kept? {
        guard let old = previous.pharmacies[pharmacyID] else { return nil }
        var entry = CarryOver(kind: .pharmacy, key: pharmacyID, fromVersion: previous.version, lastRefresh: old.lastRefresh,
                              dropped: false, offers: nil)
        func dropped(_ code: WarningCode, _ message: String) -> Kept {
            entry.dropped = true
            return Kept(row: nil, entry: entry, warning: Warning(file: "", line: 0, key: pharmacyID, code: code, message: message))
        }
        switch plan.verdict(for: old, in: previous.version) {
        case .future(let message): return dropped(.futureDropped, message)
        case .stale(let message): return dropped(.staleDropped, message)
        case .keep: break
        }
        guard let refreshed = ExportTimestamp.parseISO8601(old.lastRefresh) else { return nil } // a kept row's date parses (the verdict read it)
        let period = pricer.period(on: refreshed.localDate)
        var count = 0
        try previous.forEachOffers(of: pharmacyID, batch: batchRows) { batch in
            var rows = batch
            for index in rows.indices {
                if try !items.contains(rows[index].aptcode), let item = try previous.item(rows[index].aptcode) {
                    try items.add(item)
                }
                if let period { pricer.price(&rows[index], packageCode: try items.packageCode(of: rows[index].aptcode), period: period) }
            }
            count += rows.count
            try write(rows)
        }
        var row = registry[pharmacyID].map { known in
            PharmacyRow(id: known.id, name: known.name, chainID: known.chainID, region: known.region, address: known.address,
                        phone: known.phone, openHours: known.openHours, latitude: known.latitude, longitude: known.longitude,
                        lastRefresh: old.lastRefresh, itemCount: count, stale: true)
        } ?? old
        // An export first loaded by an earlier run of tonight's date is
        // tonight's (a re-run keeps its pharmacies fresh); anything older is
        // stale. A snapshot from before `loaded_at` cannot tell: stale.
        row.stale = old.loadedAt.flatMap { ExportTimestamp.parseISO8601($0) }?.localDate != runDate
        row.itemCount = count
        row.loadedAt = old.loadedAt ?? old.lastRefresh
        entry.offers = count
        return Kept(row: row, entry: entry, warning: nil)
    }
}
