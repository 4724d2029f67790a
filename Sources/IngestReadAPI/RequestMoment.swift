import Foundation

/// The moment a request asks about and where the service is (READ_API.md,
/// Version 3): now, or the client's `at`, in the service's time zone
/// (`--time-zone`, default Europe/Tallinn, the feeds' default). "Open now"
/// and "that day's hours" are read at it, and `maxAge` counts back from it.
public struct RequestMoment: Sendable, Equatable {
    public let date: Date
    /// 1 Monday … 7 Sunday, local.
    public let weekday: Int
    /// Minutes after local midnight.
    public let minute: Int

    public init(date: Date, timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        self.date = date
        // Calendar counts from Sunday = 1.
        weekday = ((parts.weekday ?? 1) + 5) % 7 + 1
        minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    }

    /// `at` resolved in `timeZone`: a time with an offset (or `Z`) is that
    /// instant; without one, that wall-clock time where the service is.
    public init(_ at: RequestedTime?, now: Date, timeZone: TimeZone) {
        switch at {
        case nil:
            self.init(date: now, timeZone: timeZone)
        case .instant(let date)?:
            self.init(date: date, timeZone: timeZone)
        case .local(let parts)?:
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            self.init(date: calendar.date(from: parts) ?? now, timeZone: timeZone)
        }
    }
}

/// The `at` parameter as the client wrote it: ISO 8601, `2025-11-21T10:30`,
/// seconds and an offset optional (`…:00Z`, `…+02:00`).
public enum RequestedTime: Sendable, Equatable {
    case instant(Date)
    case local(DateComponents)

    /// nil when `text` is not such a time.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, bytes[range].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return bytes[range].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        guard bytes.count >= 16, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), (1...12).contains(month), (1...31).contains(day),
              hour < 24, minute < 60 else { return nil }
        var position = 16
        var second = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: ":") {
            guard let seconds = number(position + 1..<position + 3), seconds < 60 else { return nil }
            second = seconds
            position += 3
        }
        let parts = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        if position == bytes.count {
            self = .local(parts)
            return
        }
        var offset = 0
        if bytes[position] == UInt8(ascii: "Z"), position + 1 == bytes.count {
            offset = 0
        } else if bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-"), bytes.count == position + 6,
                  bytes[position + 3] == UInt8(ascii: ":"), let hours = number(position + 1..<position + 3),
                  let minutes = number(position + 4..<position + 6), hours < 24, minutes < 60 {
            offset = (hours * 60 + minutes) * 60 * (bytes[position] == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: offset) ?? TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: parts) else { return nil }
        self = .instant(date)
    }
}

/// What every answer shares besides the snapshot: the moment it is about,
/// from the request's `at` or the clock, in the service's time zone.
public struct ReadContext: Sendable {
    public var now: Date
    public var timeZone: TimeZone

    /// The feeds' default zone (FEEDS.md) and `ingest-serve --time-zone`'s.
    public static let defaultTimeZone = TimeZone(identifier: "Europe/Tallinn")!

    public init(now: Date = Date(), timeZone: TimeZone = ReadContext.defaultTimeZone) {
        self.now = now
        self.timeZone = timeZone
    }

    func moment(_ at: RequestedTime?) -> RequestMoment { RequestMoment(at, now: now, timeZone: timeZone) }
}
