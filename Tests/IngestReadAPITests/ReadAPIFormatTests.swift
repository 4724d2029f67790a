@testable import IngestReadAPI
import Testing

/// READ_API.md's value formats: prices, distances, dates, positions.
@Suite struct ReadAPIFormatTests {
    @Test(arguments: [(Int64?.none, ""), (0, "0.00€"), (5, "0.05€"), (70, "0.70€"), (237, "2.37€"), (100_000, "1000.00€"), (-5, "-0.05€")])
    func pricesHaveTwoDecimalsAndTheEuroSign(cents: Int64?, shown: String) {
        #expect(PriceFormat.euro.string(cents) == shown)
        #expect(PriceFormat(currency: "EUR") == .euro)
    }

    /// Other currencies in their country's convention, exact from the minor
    /// units (SNAPSHOT.md): pence, öre, yen, fils (thousandths).
    @Test(arguments: [
        ("GBP", Int64(237), "£2.37"), ("GBP", 5, "£0.05"), ("GBP", 123_456, "£1234.56"),
        ("SEK", 237, "2,37 kr"), ("CHF", 1655, "CHF 16.55"), ("JPY", 237, "¥237"), ("USD", 100, "$1.00"),
        ("KWD", 2375, "2.375 د.ك."), ("PLN", 1999, "19,99 zł"), ("XAU", 237, "XAU 2.37"),
    ])
    func otherCurrenciesAsTheirCountryWritesThem(code: String, minor: Int64, shown: String) {
        #expect(PriceFormat(currency: code).string(minor) == shown)
    }

    @Test(arguments: [(0.0, "0 m"), (367.6, "368 m"), (999.49, "999 m"), (999.5, "1 km"), (1499, "1 km"), (1500, "2 km"), (162_600, "163 km")])
    func distancesAreMetresUnderAKilometreElseWholeKilometres(metres: Double, shown: String) {
        var bytes: [UInt8] = []
        ReadAPIFormat.appendDistance(metres: metres, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == shown)
    }

    @Test func theDayIsTheExportsOwnLocalDate() {
        #expect(ReadAPIFormat.day("2011-05-19T23:05:00+03:00") == "19.05.2011")
        #expect(ReadAPIFormat.day("2011-05-20") == "20.05.2011")
        #expect(ReadAPIFormat.day(nil) == "")
        #expect(ReadAPIFormat.day("junk") == "")
    }

    @Test func positionsHaveSevenDecimals() {
        #expect(ReadAPIFormat.position(latitude: 59.4380086, longitude: 24.871333) == "59.4380086,24.8713330")
        #expect(ReadAPIFormat.position(latitude: nil, longitude: 24.8) == "")
    }

    /// On a sphere of 6371 km a degree of latitude is 6371 km × π / 180, and
    /// a degree of longitude at 60° half of that along the parallel (the
    /// great circle is a little shorter).
    @Test func distancesAreGreatCircleOnASphereOf6371Kilometres() {
        let degree = 6_371_000 * Double.pi / 180
        #expect(abs(GeoPoint(latitude: 58, longitude: 24).metres(to: GeoPoint(latitude: 59, longitude: 24)) - degree) < 0.001)
        let alongParallel = GeoPoint(latitude: 60, longitude: 24).metres(to: GeoPoint(latitude: 60, longitude: 25))
        #expect(alongParallel < degree / 2 && alongParallel > degree / 2 - 10)
        #expect(GeoPoint(latitude: 59.4, longitude: 24.7).metres(to: GeoPoint(latitude: 59.4, longitude: 24.7)) == 0)
    }
}
