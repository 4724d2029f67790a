import Testing
@testable import IngestCore

@Suite struct ExportTimestampTests {
    @Test func raxTimesAreTallinnWallClock() {
        #expect(ExportTimestamp.parseCompact("20101230T2305")?.iso8601 == "2010-12-30T23:05:00+02:00")
        #expect(ExportTimestamp.parseCompact("20110519T2305")?.iso8601 == "2011-05-19T23:05:00+03:00")
        #expect(ExportTimestamp.parseCompact("20110519T2305")?.localDate == "2011-05-19")
    }

    @Test(arguments: ["20101330T2305", "20100230T2305", "20101230T2405", "20101230 2305", "2010123T2305", "abcdefghijklm", "18991230T2305"])
    func refusesImpossibleTimes(text: String) {
        #expect(ExportTimestamp.parseCompact(text) == nil)
    }

    @Test func isoTimesKeepTheirOffset() {
        let noom = ExportTimestamp.parseISO8601("2024-05-19T23:05:00+03:00")
        #expect(noom?.iso8601 == "2024-05-19T23:05:00+03:00")
        #expect(noom?.epochSeconds == 1_716_149_100)
        #expect(ExportTimestamp.parseISO8601("2024-05-19T20:05:00Z")?.epochSeconds == 1_716_149_100)
        #expect(ExportTimestamp.parseISO8601("2024-05-19T23:05:00")?.iso8601 == "2024-05-19T23:05:00+03:00")
        #expect(ExportTimestamp.parseISO8601("2024-05-19T23:05:00+3:00") == nil)
    }

    @Test func orderIsByInstant() {
        let a = ExportTimestamp.parseISO8601("2024-05-19T23:05:00+03:00")!
        let b = ExportTimestamp.parseISO8601("2024-05-19T21:00:00Z")!
        #expect(a < b)
    }
}
