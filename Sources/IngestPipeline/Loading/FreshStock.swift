import IngestCore
import IngestSnapshot

/// Tonight's offers of one loaded feed as the snapshot holds them: each
/// item added to the catalogue, each price's "since" from the history, tier
/// prices from the list in force on the export date, handed to the writer
/// in batches. A feed of millions of offers is read from its spill a buffer
/// at a time and never held whole.
struct FreshStock {
    let pricer: TierPricer
    /// Tonight's changes to prices; nil on a first night (every price is tonight's).
    let history: PriceHistoryDelta?
    /// Offers handed to the writer at a time.
    let batchRows: Int

    /// Writes the feed's offers; returns the items whose package code this
    /// feed brought first, after earlier pharmacies' offers of them were
    /// written without tier prices (`LateTierPricing` prices those).
    func write(_ offers: SortedOffers, of pharmacyID: String, exportedAt: ExportTimestamp, items: inout ItemCatalog,
               write: ([OfferRow]) throws -> Void) throws -> [String] {
        let period = pricer.period(on: exportedAt.localDate)
        let tracking = !pricer.catalog.isEmpty
        let tonight = exportedAt.iso8601
        let merge = try history?.merge(pharmacyID, tonight: tonight)
        var late: [String] = []
        var rows: [OfferRow] = []
        rows.reserveCapacity(min(offers.count, batchRows))
        try offers.forEach { offer in
            let since = try merge?.offer(offer.aptcode, offer.priceCents) ?? tonight
            let known = try items.add(offer)
            if tracking, known.existed, known.packageCode == nil, offer.packageCode != nil { late.append(offer.aptcode) }
            var row = OfferRow(aptcode: offer.aptcode, priceCents: offer.priceCents, priceSince: since, quantity: offer.quantity)
            if let period { pricer.price(&row, packageCode: offer.packageCode ?? known.packageCode, period: period) }
            rows.append(row)
            if rows.count == batchRows {
                try write(rows)
                rows.removeAll(keepingCapacity: true)
            }
        }
        try write(rows)
        try merge?.finish()
        return late
    }
}
