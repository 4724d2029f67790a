import Foundation
import IngestCore
import Testing

/// Issue 47, item 7: every machine-read time is made by `MachineTime`, in
/// the forms the outputs had when each place had a formatter of its own.
@Suite struct MachineTimeTests {
    static let moment = Date(timeIntervalSince1970: 1_795_708_629.456)

    @Test func eachFormIsTheOneItsOutputsUse() {
        #expect(MachineTime.timestamp(Self.moment) == "2026-11-26T15:57:09.456Z")
        #expect(MachineTime.utcSeconds(Self.moment) == "2026-11-26T15:57:09Z")
        #expect(MachineTime.versionStamp(Self.moment) == "20261126T155709Z")
        // What the retired formatters wrote, side by side.
        let posix = DateFormatter()
        posix.locale = Locale(identifier: "en_US_POSIX")
        posix.timeZone = TimeZone(identifier: "UTC")
        posix.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        #expect(MachineTime.versionStamp(Self.moment) == posix.string(from: Self.moment))
        #expect(MachineTime.utcSeconds(Self.moment) == ISO8601DateFormatter().string(from: Self.moment))
    }

    @Test func readsWhatItWritesAndNothingElse() {
        #expect(MachineTime.date(iso8601: "2026-11-26T15:57:09Z") == Date(timeIntervalSince1970: 1_795_708_629))
        #expect(MachineTime.date(iso8601: "2026-11-26T17:57:09+02:00") == Date(timeIntervalSince1970: 1_795_708_629))
        #expect(MachineTime.date(iso8601: "yesterday") == nil)
    }
}
