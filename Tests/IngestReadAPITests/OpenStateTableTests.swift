import Foundation
import IngestCore
import Testing
@testable import IngestReadAPI

/// `PharmacyDirectory`'s open states, worked out once per snapshot for every
/// stretch of the week in which no pharmacy opens or closes, say for every
/// minute of the week what each pharmacy's own hours say: open inside an
/// opening (its first minute in, its end out), closed outside, unknown for
/// hours that were not read.
@Suite struct OpenStateTableTests {
    private static let texts = ["E-R 9-19; L 10-16", "Mo-Fr 08:00-20:00; Sa 10:00-16:00; PH off", "24/7", "E-P 8-22",
                                "Mo-Su 22:00-24:00; Mo-Su 00:00-02:30", "Mo-Su off", "kokkuleppel", "", "E-R 8.30-17.30; L,P suletud"]

    @Test func everyMinuteOfTheWeekAgreesWithTheHours() throws {
        let rows = Self.texts.enumerated().map { index, text in
            PharmacyRow(id: "\(100 + index)", name: "APTEEK \(index)", region: "TALLINN", chainID: "", address: "", phone: "",
                        openHours: text, position: nil, lastRefresh: nil, itemCount: 0, stale: false)
        }
        let directory = PharmacyDirectory(rows)
        let hours: [OpeningHours?] = Self.texts.map { text in
            if case .success(let parsed) = OpeningHours.parse(text) { return parsed }
            return nil
        }
        #expect(hours.compactMap { $0 }.count == 7, "two texts are not hours")
        var disagreements: [String] = []
        var openMinutes = 0
        for weekday in 1...7 {
            for minute in 0..<1440 {
                let moment = try #require(Self.moment(weekday: weekday, minute: minute))
                let row = directory.openStateRow(at: moment)
                for (pharmacy, known) in hours.enumerated() {
                    let expected = known.map { $0.intervals.contains { $0.weekday == weekday && ($0.opens..<$0.closes).contains(minute) } }
                    if expected == true { openMinutes += 1 }
                    if directory.isOpen(pharmacy, in: row) != expected { disagreements.append("\(Self.texts[pharmacy]) day \(weekday) minute \(minute)") }
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
        #expect(openMinutes > 10_080, "the hours open something: \(openMinutes)")
    }

    /// A moment on `weekday` (1 Monday) of the week of 2026-11-23, at `minute`, in Tallinn.
    private static func moment(weekday: Int, minute: Int) -> RequestMoment? {
        var calendar = Calendar(identifier: .gregorian)
        let zone = TimeZone(identifier: "Europe/Tallinn")!
        calendar.timeZone = zone
        guard let date = calendar.date(from: DateComponents(year: 2026, month: 11, day: 22 + weekday, hour: minute / 60, minute: minute % 60)) else { return nil }
        let moment = RequestMoment(date: date, timeZone: zone)
        return moment.weekday == weekday && moment.minute == minute ? moment : nil
    }
}
