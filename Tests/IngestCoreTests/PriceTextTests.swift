import IngestCore
import Testing

/// FEEDS.md §12.1, prices as shops write them: the feed currency's symbol
/// or code before or after the number, with or without a space; thousands
/// separators only where the mapping names one, in groups of three; another
/// currency's marker is `wrong_currency`, anything else `bad_price`.
@Suite struct PriceTextTests {
    static func parsed(_ text: String, _ decimal: Character = ".", thousands: Unicode.Scalar? = nil, in currency: String) -> String {
        switch PriceText.parse(text, decimalSeparator: decimal.asciiValue!, thousands: thousands, currency: currency) {
        case .success(let amount): "\(amount)"
        case .failure(.otherCurrency(let marker)): "other \(marker)"
        case .failure(.notANumber): "not a number"
        }
    }

    @Test(arguments: [
        ("16.55", Character("."), nil, "EUR", "16.55"),
        ("$1.820", ".", nil, "USD", "1.820"),
        ("US$ 3.10", ".", nil, "USD", "3.10"),
        ("1,82 €", ",", nil, "EUR", "1.82"),
        ("1,82€", ",", nil, "EUR", "1.82"),
        ("€1.82", ".", nil, "EUR", "1.82"),
        ("CHF 16.55", ".", nil, "CHF", "16.55"),
        ("16.55 CHF", ".", nil, "CHF", "16.55"),
        ("16.55chf", ".", nil, "CHF", "16.55"),
        ("Fr. 16.55", ".", nil, "CHF", "16.55"),
        ("1,820.50", ".", ",", "USD", "1820.50"),
        ("$1,234,567.00", ".", ",", "USD", "1234567.00"),
        ("1.820,50 €", ",", ".", "EUR", "1820.50"),
        ("1 820,50", ",", " ", "EUR", "1820.50"),
        ("1\u{A0}820,50 kr", ",", " ", "SEK", "1820.50"),
        ("1'820.50", ".", "'", "CHF", "1820.50"),
        ("12 kr", ".", nil, "EEK", "12"),
        ("£0.99", ".", nil, "GBP", "0.99"),
    ] as [(String, Character, Unicode.Scalar?, String, String)])
    func theFeedsOwnMarkersAndSeparatorsAreRead(text: String, decimal: Character, thousands: Unicode.Scalar?, currency: String, amount: String) {
        #expect(Self.parsed(text, decimal, thousands: thousands, in: currency) == amount)
    }

    @Test(arguments: [
        ("$1.82", Character("."), nil, "EUR", "other $"),
        ("1.82 USD", ".", nil, "EUR", "other USD"),
        ("£1.82", ".", nil, "EUR", "other £"),
        ("1,82 €", ",", nil, "GBP", "other €"),
        ("12 kr", ".", nil, "EUR", "other kr"),
        ("EUR 1.82", ".", nil, "LVL", "other EUR"),
        ("1.82 abc", ".", nil, "EUR", "not a number"),
        ("1,82", ".", nil, "EUR", "not a number"),
        ("1,8200.50", ".", ",", "USD", "not a number"),
        ("1,82,000", ".", ",", "USD", "not a number"),
        (",820.50", ".", ",", "USD", "not a number"),
        ("1.820,5,0", ",", ".", "EUR", "not a number"),
        ("€ 1.82 €", ".", nil, "EUR", "not a number"),
        ("-1.82", ".", nil, "EUR", "not a number"),
        ("1 820", ".", nil, "EUR", "not a number"),
        ("EUR", ".", nil, "EUR", "not a number"),
        ("", ".", nil, "EUR", "not a number"),
        ("1.82.3", ".", nil, "EUR", "not a number"),
    ] as [(String, Character, Unicode.Scalar?, String, String)])
    func anotherCurrencyOrNoNumberIsRefused(text: String, decimal: Character, thousands: Unicode.Scalar?, currency: String, verdict: String) {
        #expect(Self.parsed(text, decimal, thousands: thousands, in: currency) == verdict)
    }
}
