import IngestCore
import IngestSnapshot

/// What the pharmacy checks are given of one feed: its item count, the
/// pharmacy's count in `current`, and the median ratio of tonight's prices
/// to current's over a sample. The sample costs point lookups in current,
/// so it is taken only when the price check is on.
struct FeedMeasurement {
    let previous: PreviousSnapshot?
    let checks: StockDataChecks

    func evidence(_ offers: SortedOffers, of pharmacyID: String) throws -> PharmacyEvidence {
        var evidence = PharmacyEvidence(pharmacyID: pharmacyID, items: offers.count)
        guard let previous, let old = previous.pharmacies[pharmacyID] else { return evidence }
        evidence.currentItems = old.itemCount
        if checks.maxPriceRatio > 0 {
            // Tonight's first items in key order against current's from the same key on.
            let sample = offers.head.prefix(checks.priceSample).map { (aptcode: $0.aptcode, cents: $0.priceCents) }
            let current = try sample.first.map { try previous.prices(of: pharmacyID, from: $0.aptcode, limit: checks.priceSample) } ?? [:]
            evidence.priceRatio = StockDataChecks.medianRatio(tonight: sample, current: current)
        }
        return evidence
    }

    /// A feed whose every offer has quantity 0 still loads (0 is a stock
    /// level), but the operator is told: it is more often a broken export
    /// than a pharmacy sold out of everything.
    static func allQuantitiesZero(_ offers: SortedOffers, of pharmacyID: String, file: String) -> Warning? {
        guard offers.allQuantitiesZero else { return nil }
        return Warning(file: file, line: 0, key: pharmacyID, code: .allQuantitiesZero,
                       message: "every one of pharmacy \(pharmacyID)'s \(offers.count) offers has quantity 0")
    }
}
