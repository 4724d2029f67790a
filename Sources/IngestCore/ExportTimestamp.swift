import Foundation

/// The moment a feed was exported, kept with the UTC offset it was written
/// in, so `last_refresh` shows the pharmacy's own wall-clock time and still
/// names one instant.
public struct ExportTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    public let epochSeconds: Int64
    /// Seconds east of UTC in force where and when the feed was written.
    public let utcOffsetSeconds: Int

    public init(epochSeconds: Int64, utcOffsetSeconds: Int) {
        self.epochSeconds = epochSeconds
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    public static func < (a: Self, b: Self) -> Bool { a.epochSeconds < b.epochSeconds }

    /// The pharmacy systems write Tallinn wall-clock time; the zone rules
    /// (EET/EEST and the 1990s changes) come from the system's tzdata.
    public static let tallinn = TimeZone(identifier: "Europe/Tallinn")!

    /// A wall-clock time in `zone`; nil when a field is out of range.
    public static func local(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int = 0, in zone: TimeZone
    ) -> ExportTimestamp? {
        guard (1900...2999).contains(year), (1...12).contains(month), (1...31).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        let epoch = Int64(date.timeIntervalSince1970.rounded())
        return ExportTimestamp(epochSeconds: epoch, utcOffsetSeconds: zone.secondsFromGMT(for: date))
    }

    /// An instant as the pharmacies' clock shows it (Tallinn's offset at that moment): a run's `--as-of`.
    public static func tallinnTime(_ date: Date) -> ExportTimestamp {
        ExportTimestamp(epochSeconds: Int64(date.timeIntervalSince1970.rounded(.down)), utcOffsetSeconds: tallinn.secondsFromGMT(for: date))
    }

    /// The value of ASCII digits; nil if any byte is not one.
    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    /// `YYYYMMDDTHHMM` (the RAX header), Tallinn time.
    public static func parseCompact(_ text: String, in zone: TimeZone = tallinn) -> ExportTimestamp? {
        let bytes = Array(text.utf8)
        guard bytes.count == 13, bytes[8] == UInt8(ascii: "T") else { return nil }
        func number(_ range: Range<Int>) -> Int? { digits(bytes[range]) }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
              let hour = number(9..<11), let minute = number(11..<13) else { return nil }
        return local(year: year, month: month, day: day, hour: hour, minute: minute, in: zone)
    }

    /// ISO 8601 with seconds and an offset or `Z` (`2024-05-19T23:05:00+03:00`);
    /// without an offset the time is taken as Tallinn time.
    public static func parseISO8601(_ text: String, defaultZone: TimeZone = tallinn) -> ExportTimestamp? {
        let trimmed = text.trimmed
        let bytes = Array(trimmed.utf8)
        guard bytes.count >= 19, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 32,
              bytes[13] == 58, bytes[16] == 58 else { return nil }
        func number(_ range: Range<Int>) -> Int? { digits(bytes[range]) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        var rest = bytes[19...]
        if rest.first == 46 { // fractional seconds: ignored
            rest = rest.dropFirst().drop(while: { $0 >= 48 && $0 <= 57 })
        }
        let zone: TimeZone
        if rest.isEmpty {
            zone = defaultZone
        } else if rest.elementsEqual([90]) { // Z
            zone = TimeZone(secondsFromGMT: 0)!
        } else {
            let offset = Array(rest)
            guard offset.count == 6, offset[0] == 43 || offset[0] == 45, offset[3] == 58 else { return nil }
            let digits = offset[1...2] + offset[4...5]
            guard digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            let h = Int(offset[1] - 48) * 10 + Int(offset[2] - 48)
            let m = Int(offset[4] - 48) * 10 + Int(offset[5] - 48)
            guard h <= 14, m <= 59 else { return nil }
            let seconds = (h * 3600 + m * 60) * (offset[0] == 45 ? -1 : 1)
            guard let fixed = TimeZone(secondsFromGMT: seconds) else { return nil }
            zone = fixed
        }
        return local(year: year, month: month, day: day, hour: hour, minute: minute, second: second, in: zone)
    }

    /// ISO 8601 in the feed's own offset: `2010-12-30T23:05:00+02:00`.
    public var iso8601: String {
        let local = epochSeconds + Int64(utcOffsetSeconds)
        let days = Int(local.floorDiv(86_400))
        let secondsOfDay = Int(local - Int64(days) * 86_400)
        let (y, m, d) = Self.civilDate(fromDays: days)
        let offset = abs(utcOffsetSeconds)
        let sign = utcOffsetSeconds < 0 ? "-" : "+"
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d%@%02d:%02d",
            y, m, d, secondsOfDay / 3600, secondsOfDay / 60 % 60, secondsOfDay % 60,
            sign, offset / 3600, offset / 60 % 60)
    }

    /// The calendar date of this instant in its own offset (`2011-05-19`).
    public var localDate: String { String(iso8601.prefix(10)) }

    public var description: String { iso8601 }

    /// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func civilDate(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

extension Int64 {
    fileprivate func floorDiv(_ divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }
}
