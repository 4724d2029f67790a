/// What a patient pays at each reimbursement tier (FEEDS.md §7):
///
///     fund    = round_half_up_to_cent( r × max(0, min(P, L) − F) )
///     patient = P − fund
///
/// with the prescription fee F of the period in force on the feed's export
/// date. All amounts are integer cents and the rate a whole percent, so the
/// fund's share is `r × covered / 100` rounded half-up once; the patient's
/// share is never rounded on its own.
public struct PatientPriceRules: Sendable, Equatable {
    /// The reimbursement rates of the statute, in percent.
    public static let rates = [50, 75, 90, 100]

    public struct Period: Sendable, Equatable {
        /// ISO date (`2011-01-01`), inclusive.
        public let from: String
        /// Prescription fee in cents per rate.
        public let fees: [Int: Int64]

        public init(from: String, fees: [Int: Int64]) {
            self.from = from
            self.fees = fees
        }
    }

    /// Sorted by `from`.
    public let periods: [Period]

    /// The periods of FEEDS.md §7, used only when the rules file is missing.
    public static let statutory = PatientPriceRules(periods: [
        Period(from: "2003-01-01", fees: [100: 128, 90: 128, 75: 128, 50: 320]),
        Period(from: "2011-01-01", fees: [100: 127, 90: 127, 75: 127, 50: 319]),
        Period(from: "2018-01-01", fees: [100: 250, 90: 250, 75: 250, 50: 250]),
        Period(from: "2025-01-01", fees: [100: 350, 90: 350, 75: 350, 50: 350]),
    ])

    public init(periods: [Period]) {
        self.periods = periods.sorted { $0.from < $1.from }
    }

    /// The period in force on `date` (ISO `yyyy-MM-dd`); nil before the first.
    public func period(on date: String) -> Period? {
        periods.last { $0.from <= date }
    }

    /// The patient's price at `rate` for shelf price `shelf` and limit `limit` (cents).
    public static func patientCents(shelf: Int64, limit: Int64, fee: Int64, rate: Int) -> Int64 {
        let covered = max(0, min(shelf, limit) - fee)
        let fund = Int64(HalfUpRounding.divide(Int128(rate) * Int128(covered), by: 100))
        return shelf - fund
    }
}

/// The tier prices of one offer, in cents; nil where the item has no such tier.
public struct TierPrices: Sendable, Equatable {
    public var limitCents: Int64
    public var price50: Int64?
    public var price75: Int64?
    public var price90: Int64?
    public var price100: Int64?

    public init(limitCents: Int64, price50: Int64? = nil, price75: Int64? = nil, price90: Int64? = nil, price100: Int64? = nil) {
        self.limitCents = limitCents
        self.price50 = price50
        self.price75 = price75
        self.price90 = price90
        self.price100 = price100
    }

    /// The prices for an item whose package lists `listedRates` (50, 75, 100)
    /// with limit price `limit` (nil: the shelf price). The 90 % tier exists
    /// exactly where the 75 % tier does.
    public init(shelf: Int64, limit: Int64?, listedRates: Set<Int>, period: PatientPriceRules.Period) {
        let limit = limit ?? shelf
        func price(_ rate: Int, listedAs listed: Int) -> Int64? {
            guard listedRates.contains(listed), let fee = period.fees[rate] else { return nil }
            return PatientPriceRules.patientCents(shelf: shelf, limit: limit, fee: fee, rate: rate)
        }
        self.init(limitCents: limit, price50: price(50, listedAs: 50), price75: price(75, listedAs: 75),
                  price90: price(90, listedAs: 75), price100: price(100, listedAs: 100))
    }
}
