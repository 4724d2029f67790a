import PropertyBased
import Testing
@testable import IngestCore

@Suite struct PatientPriceRulesTests {
    /// The four periods of FEEDS.md §7, in cents.
    static let rules = PatientPriceRules(periods: [
        .init(from: "2003-01-01", fees: [100: 128, 90: 128, 75: 128, 50: 320]),
        .init(from: "2011-01-01", fees: [100: 127, 90: 127, 75: 127, 50: 319]),
        .init(from: "2018-01-01", fees: [100: 250, 90: 250, 75: 250, 50: 250]),
        .init(from: "2025-01-01", fees: [100: 350, 90: 350, 75: 350, 50: 350]),
    ])

    @Test func theThesisFigureAndTheSpecsCheck() throws {
        // 2011: P = 2.37, L = 1.89.
        let period = try #require(Self.rules.period(on: "2011-05-19"))
        let prices = TierPrices(shelf: 237, limit: 189, listedRates: [50, 75, 100], period: period)
        #expect(prices.price100 == 175)   // the fund pays 0.62
        #expect(prices.price50 == 237)    // the fund pays 0
        #expect(prices.price90 == 181)    // the fund pays 0.558 → 0.56
        #expect(prices.limitCents == 189)
    }

    @Test func eachPeriodAppliesFromItsFirstDay() {
        #expect(Self.rules.period(on: "2002-12-31") == nil)
        #expect(Self.rules.period(on: "2003-01-01")?.fees[50] == 320)
        #expect(Self.rules.period(on: "2010-12-31")?.fees[100] == 128)
        #expect(Self.rules.period(on: "2011-01-01")?.fees[100] == 127)
        #expect(Self.rules.period(on: "2017-12-31")?.fees[50] == 319)
        #expect(Self.rules.period(on: "2018-01-01")?.fees[50] == 250)
        #expect(Self.rules.period(on: "2024-12-31")?.fees[100] == 250)
        #expect(Self.rules.period(on: "2025-01-01")?.fees[100] == 350)
    }

    /// P = 10.00, L = 8.00 in every period; the 75 % tier of 2018 shows a half rounding up.
    static let periodCases: [(String, Int64, Int64, Int64, Int64)] = [
        ("2003-06-01", 328, 395, 496, 760),
        ("2011-06-01", 327, 394, 495, 759),
        ("2018-06-01", 450, 505, 587, 725),
        ("2025-06-01", 550, 595, 662, 775),
    ]

    @Test(arguments: periodCases)
    func feePeriods(date: String, p100: Int64, p90: Int64, p75: Int64, p50: Int64) throws {
        let period = try #require(Self.rules.period(on: date))
        let prices = TierPrices(shelf: 1000, limit: 800, listedRates: [50, 75, 100], period: period)
        #expect(prices.price100 == p100)
        #expect(prices.price90 == p90)
        #expect(prices.price75 == p75)
        #expect(prices.price50 == p50)
    }

    @Test func ninetyExistsExactlyWhereSeventyFiveDoes() throws {
        let period = try #require(Self.rules.period(on: "2020-01-01"))
        let without = TierPrices(shelf: 500, limit: 400, listedRates: [50, 100], period: period)
        #expect(without.price75 == nil && without.price90 == nil)
        #expect(without.price50 != nil && without.price100 != nil)
        let with = TierPrices(shelf: 500, limit: 400, listedRates: [75], period: period)
        #expect(with.price75 != nil && with.price90 != nil && with.price50 == nil && with.price100 == nil)
    }

    @Test func anAbsentLimitIsTheShelfPrice() throws {
        let period = try #require(Self.rules.period(on: "2020-01-01"))
        let prices = TierPrices(shelf: 1000, limit: nil, listedRates: [100], period: period)
        #expect(prices.limitCents == 1000)
        #expect(prices.price100 == 250)
    }

    // MARK: Properties

    static let shelf = Gen.int(in: 0...500_000)
    static let limit = Gen.int(in: 0...500_000)
    static let date = Gen.int(in: 0...3).map { ["2005-01-01", "2012-03-04", "2019-07-08", "2026-01-01"][$0] }

    @Test func thePatientPaysBetweenNothingAndTheShelfPrice() async {
        await propertyCheck(count: 500, input: Self.shelf, Self.limit, Self.date) { shelf, limit, date in
            let period = Self.rules.period(on: date)!
            for rate in PatientPriceRules.rates {
                let patient = PatientPriceRules.patientCents(shelf: Int64(shelf), limit: Int64(limit), fee: period.fees[rate]!, rate: rate)
                #expect(patient >= 0)
                #expect(patient <= Int64(shelf))
            }
        }
    }

    @Test func aHigherRateNeverCostsThePatientMore() async {
        await propertyCheck(count: 500, input: Self.shelf, Self.limit, Self.date) { shelf, limit, date in
            let period = Self.rules.period(on: date)!
            let prices = PatientPriceRules.rates.map {
                PatientPriceRules.patientCents(shelf: Int64(shelf), limit: Int64(limit), fee: period.fees[$0]!, rate: $0)
            }
            #expect(prices == prices.sorted(by: >), "rates \(PatientPriceRules.rates) gave \(prices)")
        }
    }

    /// The fund's share is the exact product rounded half-up once: within half
    /// a cent of it, and a half rounds up.
    @Test func theFundsShareIsTheExactProductRoundedOnce() async {
        await propertyCheck(count: 500, input: Self.shelf, Self.limit, Self.date) { shelf, limit, date in
            let period = Self.rules.period(on: date)!
            for rate in PatientPriceRules.rates {
                let fund = Int64(shelf) - PatientPriceRules.patientCents(shelf: Int64(shelf), limit: Int64(limit), fee: period.fees[rate]!, rate: rate)
                let exactTimes100 = Int64(rate) * max(0, min(Int64(shelf), Int64(limit)) - period.fees[rate]!)
                let difference = fund * 100 - exactTimes100
                #expect(difference > -50 && difference <= 50)
            }
        }
    }
}
