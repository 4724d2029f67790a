import Testing
@testable import IngestCore

@Suite struct MoneyTests {
    private func decimal(_ text: String, _ separator: Unicode.Scalar = ",") -> ExactDecimal {
        ExactDecimal.parse(text, decimalSeparator: separator, maxFractionDigits: 6)!
    }

    @Test(arguments: [(5, 10, 1), (4, 10, 0), (15, 10, 2), (-5, 10, -1), (-4, 10, 0), (149, 100, 1), (150, 100, 2), (0, 7, 0)])
    func halfUpRoundsHalvesAwayFromZero(numerator: Int, denominator: Int, expected: Int) {
        #expect(HalfUpRounding.divide(Int128(numerator), by: Int128(denominator)) == Int128(expected))
    }

    /// FEEDS.md §1 and the spine issue's acceptance figures.
    @Test(arguments: [("129,9", 830), ("156,46", 1000), ("37,08", 237), ("58,05", 371), ("0", 0), ("0,01", 0), ("0,08", 1)])
    func kroonsConvertAtTheFixedRate(eek: String, cents: Int64) throws {
        #expect(try Money.cents(decimal(eek), in: .eek) == cents)
    }

    @Test func euroAmountsAreExact() throws {
        #expect(try Money.cents(decimal("2,37"), in: .eur) == 237)
        #expect(try Money.cents(decimal("0,5"), in: .eur) == 50)
        #expect(try Money.cents(decimal("1234,00"), in: .eur) == 123400)
        // A third decimal place rounds half-up once.
        #expect(try Money.cents(decimal("0.005", "."), in: .eur) == 1)
        #expect(try Money.cents(decimal("0.0049", "."), in: .eur) == 0)
    }

    @Test func latsAndLitasConvertAtTheirRates() throws {
        #expect(try Money.cents(decimal("0,98"), in: .lvl) == 139)
        #expect(try Money.cents(decimal("3,4528"), in: .ltl) == 100)
    }

    @Test func netPlusVATRoundsOnceAtTheEnd() throws {
        #expect(try Money.shelfCents(net: decimal("3.40", "."), vatPercent: decimal("9"), in: .eur) == 371)
        #expect(try Money.shelfCents(net: decimal("8.26", "."), vatPercent: decimal("22"), in: .eur) == 1008)
        #expect(try Money.shelfCents(net: decimal("2.17", "."), vatPercent: decimal("9"), in: .eur) == 237)
        // 1.00 × 1.055 = 1.055 → 1.06 (a fractional rate, half-up)
        #expect(try Money.shelfCents(net: decimal("1.00", "."), vatPercent: decimal("5.5", "."), in: .eur) == 106)
    }

    /// SNAPSHOT.md, money in other currencies: minor units by ISO 4217's
    /// exponent; the euro's predecessors still convert to euro cents.
    @Test(arguments: [
        ("GBP", "2.37", Int64(237)), ("SEK", "2.375", 238), ("JPY", "237", 237), ("JPY", "236.5", 237),
        ("KWD", "2.375", 2375), ("CHF", "16.55", 1655), ("gbp", "0.01", 1), ("EEK", "156.466", 1000),
    ])
    func otherCurrenciesInTheirMinorUnits(code: String, amount: String, minor: Int64) throws {
        #expect(try Money.minorUnits(decimal(amount, "."), writtenIn: code) == minor)
    }

    @Test func theCurrencyPricesAreKeptIn() throws {
        #expect(["EUR", "EEK", "LVL", "LTL", "GBP", "chf", "XYZ", "EURO"].map(Money.keptCurrency) == ["EUR", "EUR", "EUR", "EUR", "GBP", "CHF", nil, nil])
        #expect(try Money.shelfMinorUnits(net: decimal("10", "."), vatPercent: decimal("20"), writtenIn: "GBP") == 1200)
        #expect(try Money.shelfMinorUnits(net: decimal("100", "."), vatPercent: decimal("8.1", "."), writtenIn: "JPY") == 108)
    }

    @Test func hugeAmountsAreOutOfRangeNotATrap() {
        #expect(throws: MoneyError.outOfRange) { try Money.cents(decimal("999999999999999999999999"), in: .eur) }
        #expect(throws: MoneyError.outOfRange) {
            try Money.shelfCents(net: decimal("999999999999999999999999"), vatPercent: decimal("999999999999999999999999"), in: .lvl)
        }
        #expect(throws: MoneyError.negative) { try Money.cents(ExactDecimal(units: -1, scale: 0), in: .eur) }
    }
}
