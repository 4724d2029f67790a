import IngestAdapters
import IngestCore
import IngestSnapshot

/// Puts the limit price and the patient's price at each tier on an offer
/// whose item is on the reimbursement list in force, using the fee period of
/// the feed's export date.
struct TierPricer: Sendable {
    let rules: PatientPriceRules?
    let catalog: ReimbursementCatalogSnapshot

    /// A Sendable copy of what pricing needs from the list.
    struct ReimbursementCatalogSnapshot: Sendable {
        var packages: [String: (limit: Int64?, rates: Set<Int>)]
        var isEmpty: Bool { packages.isEmpty }
    }

    init(rules: PatientPriceRules?, catalog: ReimbursementCatalog) {
        self.rules = rules
        self.catalog = ReimbursementCatalogSnapshot(packages: catalog.packages.mapValues { ($0.limitCents, $0.rates) })
    }

    /// nil when no list is in force (no tier prices at all), else a failure
    /// for a feed whose export date precedes every fee period.
    func problem(for header: StockFeedHeader) -> FeedFailure? {
        guard !catalog.isEmpty, let rules else { return nil }
        guard rules.period(on: header.exportedAt.localDate) == nil else { return nil }
        return FeedFailure(reason: .noFeePeriod,
                           message: "export date \(header.exportedAt.localDate) precedes the first fee period (\(rules.periods.first?.from ?? "none")) of \(PatientPriceRulesLoader.fileName)")
    }

    /// The fee period for a feed's export date; nil when no list is in force
    /// (or the date has none), and then no offer of the feed gets tier prices.
    /// Looked up once a feed, not once an offer.
    func period(on exportDate: String) -> PatientPriceRules.Period? {
        guard !catalog.isEmpty else { return nil }
        return rules?.period(on: exportDate)
    }

    /// Fills the tier columns; returns whether the package is on the list.
    @discardableResult
    func price(_ row: inout OfferRow, packageCode: String?, exportDate: String) -> Bool {
        guard let period = period(on: exportDate) else { return false }
        return price(&row, packageCode: packageCode, period: period)
    }

    @discardableResult
    func price(_ row: inout OfferRow, packageCode: String?, period: PatientPriceRules.Period) -> Bool {
        guard let packageCode, let package = catalog.packages[packageCode] else { return false }
        let prices = TierPrices(shelf: row.priceCents, limit: package.limit, listedRates: package.rates, period: period)
        row.limitPriceCents = prices.limitCents
        row.price50Cents = prices.price50
        row.price75Cents = prices.price75
        row.price90Cents = prices.price90
        row.price100Cents = prices.price100
        return true
    }
}

extension RejectReason {
    public static let noFeePeriod = RejectReason(rawValue: "no_fee_period")
}
