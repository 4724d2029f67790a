import IngestCore
import Testing

/// The registry's `open_hours` read as weekly openings (READ_API.md,
/// Version 3): OSM `opening_hours` syntax, the Estonian short form, and
/// free text refused with its reason.
@Suite struct OpeningHoursTests {
    /// Each day's `oh` text, Monday first.
    private func week(_ text: String) -> [String]? {
        guard case .success(let hours?) = OpeningHours.parse(text) else { return nil }
        return (1...7).map { hours.text(weekday: $0) }
    }

    @Test func openStreetMapSyntax() {
        #expect(week("Mo-Fr 08:00-20:00; Sa 10:00-16:00; PH off")
            == ["08:00-20:00", "08:00-20:00", "08:00-20:00", "08:00-20:00", "08:00-20:00", "10:00-16:00", ""])
        #expect(week("24/7") == Array(repeating: "00:00-24:00", count: 7))
        #expect(week("Mo-Fr 08:00-12:00,13:00-17:00; Su off")
            == Array(repeating: "08:00-12:00, 13:00-17:00", count: 5) + ["", ""])
        #expect(week("Mo,We,Fr 09:00-18:00") == ["09:00-18:00", "", "09:00-18:00", "", "09:00-18:00", "", ""])
        #expect(week("09:00-21:00") == Array(repeating: "09:00-21:00", count: 7), "no days: every day")
        #expect(week("Mo-Su 09:00-21:00; Su off") == Array(repeating: "09:00-21:00", count: 6) + [""], "a later rule replaces an earlier one")
        #expect(week("Fr-Mo 10:00-14:00") == ["10:00-14:00", "", "", "", "10:00-14:00", "10:00-14:00", "10:00-14:00"], "over the week's end")
    }

    @Test func estonianShortForm() {
        #expect(week("E-R 10-21; L,P 12-20")
            == ["10:00-21:00", "10:00-21:00", "10:00-21:00", "10:00-21:00", "10:00-21:00", "12:00-20:00", "12:00-20:00"])
        #expect(week("E-P 8-22") == Array(repeating: "08:00-22:00", count: 7))
        #expect(week("E-R 9-18") == Array(repeating: "09:00-18:00", count: 5) + ["", ""])
        #expect(week("E-R 8.30-17; L 9.30-15; P suletud") == Array(repeating: "08:30-17:00", count: 5) + ["09:30-15:00", ""])
        #expect(week("ööpäevaringselt") == Array(repeating: "00:00-24:00", count: 7))
        #expect(week("e-r 10-21") == Array(repeating: "10:00-21:00", count: 5) + ["", ""], "any case")
    }

    @Test func hoursPastMidnightContinueOnTheNextDay() throws {
        guard case .success(let hours?) = OpeningHours.parse("Fr,Sa 20:00-02:00") else {
            Issue.record("not read")
            return
        }
        #expect(hours.intervals == [.init(weekday: 5, opens: 1200, closes: 1440), .init(weekday: 6, opens: 0, closes: 120),
                                    .init(weekday: 6, opens: 1200, closes: 1440), .init(weekday: 7, opens: 0, closes: 120)])
        #expect(hours.isOpen(weekday: 6, minute: 60) && !hours.isOpen(weekday: 6, minute: 120) && hours.isOpen(weekday: 5, minute: 1439))
        #expect(!hours.isOpen(weekday: 5, minute: 1199))
    }

    @Test func freeTextIsRefusedWithItsReason() {
        #expect(OpeningHours.parse("") == .success(nil))
        #expect(OpeningHours.parse(nil) == .success(nil))
        for (text, reason) in [
            ("by appointment", "\"by appointment\" has no days and times such as Mo-Fr 08:00-20:00 or E-R 8-20"),
            ("Jan-Mar Mo-Fr 08:00-20:00", "\"Jan-Mar Mo-Fr 08:00-20:00\" has no days and times such as Mo-Fr 08:00-20:00 or E-R 8-20"),
            ("Mo-Fr 08:00-20:00; Sa sunrise-sunset", "\"Sa sunrise-sunset\" has no days and times such as Mo-Fr 08:00-20:00 or E-R 8-20"),
            ("E-R 25-26", "\"E-R 25-26\" has no days and times such as Mo-Fr 08:00-20:00 or E-R 8-20"),
            ("P-Pk 8-20", "\"P-Pk 8-20\" has no days and times such as Mo-Fr 08:00-20:00 or E-R 8-20"),
            ("Mo-Fr", "no hours for \"Mo-Fr\""),
        ] {
            guard case .failure(let unreadable) = OpeningHours.parse(text) else {
                Issue.record("\(text) was read")
                continue
            }
            #expect(unreadable.reason == reason, "\(text)")
            #expect(unreadable.text == text)
        }
    }
}
