/// A pharmacy's weekly opening hours, read from the registry's free-text
/// `open_hours` (READ_API.md, Version 3: "where to go now"). Two notations
/// are read, and mixed within one text as registries do:
/// - OpenStreetMap's `opening_hours`: `Mo-Fr 08:00-20:00; Sa 10:00-16:00;
///   PH off`, `24/7`, `Mo-Fr 08:00-12:00,13:00-17:00`, `Su off`;
/// - the Estonian short form: `E-R 10-21; L,P 12-20`, `E-P 8-22`,
///   `L 9.30-15`, `P suletud`, `ööpäevaringselt`.
///
/// As in OSM, a later rule replaces what an earlier one said of its days.
/// Public-holiday rules (`PH …`, `riigipühad …`) are skipped: the service
/// keeps no holiday calendar, so `on` is the ordinary week's answer. Hours
/// past midnight (`22:00-02:00`) continue into the next day. Text that is
/// neither notation (`by appointment`, month ranges, `sunrise`) is not
/// guessed at: `parse` says why, and the pharmacy's hours stay unknown.
public struct OpeningHours: Sendable, Hashable {
    /// One opening: `weekday` 1 Monday … 7 Sunday (ISO 8601), minutes after
    /// midnight, `closes` after `opens`, at most 1440 (24:00).
    public struct Interval: Sendable, Hashable, Comparable {
        public var weekday: Int
        public var opens: Int
        public var closes: Int

        public init(weekday: Int, opens: Int, closes: Int) {
            self.weekday = weekday
            self.opens = opens
            self.closes = closes
        }

        public static func < (a: Self, b: Self) -> Bool { (a.weekday, a.opens, a.closes) < (b.weekday, b.opens, b.closes) }

        /// `08:00-20:00`, as the snapshot and the answers write it.
        public var text: String { OpeningHours.clock(opens) + "-" + OpeningHours.clock(closes) }
    }

    /// Why a text is not read as opening hours.
    public struct Unreadable: Error, Equatable, CustomStringConvertible {
        public var text: String
        public var reason: String
        public var description: String { "\(reason) in \"\(text)\"" }
    }

    /// Sorted by day and time; a day without any is closed.
    public let intervals: [Interval]

    public init(intervals: [Interval]) { self.intervals = intervals.sorted() }

    /// The day's openings as the answers' `oh` writes them: `08:00-20:00`,
    /// several joined with `, `; empty when closed all day.
    public func text(weekday: Int) -> String {
        intervals.filter { $0.weekday == weekday }.map(\.text).joined(separator: ", ")
    }

    /// Whether open at `minute` (0…1439) of `weekday`.
    public func isOpen(weekday: Int, minute: Int) -> Bool {
        intervals.contains { $0.weekday == weekday && $0.opens <= minute && minute < $0.closes }
    }

    /// `HH:MM`; 1440 is `24:00`.
    public static func clock(_ minutes: Int) -> String {
        let hours = minutes / 60, rest = minutes % 60
        return (hours < 10 ? "0" : "") + String(hours) + ":" + (rest < 10 ? "0" : "") + String(rest)
    }

    // MARK: - Reading

    static let osmDays = ["mo": 1, "tu": 2, "we": 3, "th": 4, "fr": 5, "sa": 6, "su": 7]
    static let estonianDays: [Character: Int] = ["e": 1, "t": 2, "k": 3, "n": 4, "r": 5, "l": 6, "p": 7]
    static let closedWords: Set<String> = ["off", "closed", "suletud", "kinni"]
    static let allDayWords: Set<String> = ["24/7", "ööpäevaringselt", "24h", "non-stop", "nonstop"]
    static let holidayWords: Set<String> = ["ph", "riigipühad", "riigipühadel", "pühad", "pühadel"]

    /// The weekly hours `text` gives, nil for an empty text.
    public static func parse(_ text: String?) -> Result<OpeningHours?, Unreadable> {
        let text = text ?? ""
        let trimmed = text.trimmed
        guard !trimmed.isEmpty else { return .success(nil) }
        func unreadable(_ reason: String) -> Result<OpeningHours?, Unreadable> { .failure(Unreadable(text: text, reason: reason)) }
        var days: [[ClosedRange<Int>]?] = Array(repeating: nil, count: 8) // index 1…7; nil: no rule said
        for rawRule in trimmed.split(whereSeparator: { $0 == ";" || $0 == "\n" }) {
            let rule = rawRule.lowercased().trimmed
            if rule.isEmpty { continue }
            if allDayWords.contains(rule) {
                for day in 1...7 { days[day] = [0...1440] }
                continue
            }
            // The selector: the leading words made only of day names, ranges and commas.
            var rest = Substring(rule)
            var selected: [Int] = []
            var holiday = false
            while let word = rest.split(separator: " ", maxSplits: 1).first {
                let stripped = word.strippingEdges(",:")
                if holidayWords.contains(stripped) {
                    holiday = true
                } else if let listed = weekdays(in: stripped) {
                    selected += listed
                } else {
                    break
                }
                rest = rest.dropFirst(word.count).drop { $0 == " " }
            }
            if holiday && selected.isEmpty { continue } // PH off, PH 10:00-14:00: no holiday calendar here
            if selected.isEmpty { selected = Array(1...7) } // `08:00-20:00` alone: every day
            let spans = rest.trimmed
            if spans.isEmpty { return unreadable("no hours for \"\(rawRule.trimmed)\"") }
            if closedWords.contains(spans) {
                for day in selected { days[day] = [] }
                continue
            }
            if allDayWords.contains(spans) {
                for day in selected { days[day] = [0...1440] }
                continue
            }
            var ranges: [ClosedRange<Int>] = []
            for span in spans.split(separator: ",") {
                guard let range = timeSpan(span.trimmed) else {
                    return unreadable("\"\(rawRule.trimmed)\" has no days and times such as Mo-Fr 08:00-20:00 or E-R 8-20")
                }
                ranges.append(range)
            }
            for day in selected { days[day] = ranges }
        }
        var intervals: [Interval] = []
        for day in 1...7 {
            for range in days[day] ?? [] {
                if range.upperBound <= 1440 {
                    if range.lowerBound < range.upperBound { intervals.append(Interval(weekday: day, opens: range.lowerBound, closes: range.upperBound)) }
                } else {
                    // Past midnight: the rest belongs to the next day's early hours.
                    intervals.append(Interval(weekday: day, opens: range.lowerBound, closes: 1440))
                    intervals.append(Interval(weekday: day % 7 + 1, opens: 0, closes: range.upperBound - 1440))
                }
            }
        }
        return .success(OpeningHours(intervals: merged(intervals)))
    }

    /// Intervals of one day that touch or overlap, joined (`22:00-24:00` and the previous night's `00:00-02:00` stay apart: other starts).
    private static func merged(_ intervals: [Interval]) -> [Interval] {
        var result: [Interval] = []
        for interval in intervals.sorted() {
            if let last = result.last, last.weekday == interval.weekday, interval.opens <= last.closes {
                result[result.count - 1].closes = max(last.closes, interval.closes)
            } else {
                result.append(interval)
            }
        }
        return result
    }

    /// `mo-fr`, `mo,we`, `e-r`, `l,p`, `e`: the days, nil when `word` is not a day selector.
    static func weekdays(in word: String) -> [Int]? {
        var days: [Int] = []
        for part in word.split(separator: ",", omittingEmptySubsequences: true) {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard (1...2).contains(ends.count), let first = weekday(ends[0]), let last = weekday(ends.last!) else { return nil }
            var day = first
            days.append(day)
            while day != last {
                day = day % 7 + 1 // Fr-Mo wraps over the week's end
                days.append(day)
            }
        }
        return days.isEmpty ? nil : days
    }

    private static func weekday(_ name: String) -> Int? {
        if let day = osmDays[name] { return day }
        if name.count == 1, let day = estonianDays[name.first!] { return day }
        return nil
    }

    /// `08:00-20:00`, `8-20`, `9.30-18`, `22:00-02:00`: minutes from the
    /// day's midnight; a close at or before the open is the next day's
    /// (`+ 1440`), except `00:00`, which is the end of the day.
    static func timeSpan(_ text: String) -> ClosedRange<Int>? {
        let ends = text.replacingOccurrences(of: "–", with: "-").split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let opens = clockTime(ends[0].trimmed), var closes = clockTime(ends[1].trimmed),
              opens < 1440 else { return nil }
        if closes == 0 { closes = 1440 }
        if closes <= opens { closes += 1440 }
        return opens...closes
    }

    /// `8`, `08`, `8:30`, `08.30`, `24:00`: minutes after midnight.
    public static func clockTime(_ text: String) -> Int? {
        let parts = text.split(separator: text.contains(":") ? ":" : ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let hours = Int(parts[0]), let minutes = parts.count == 2 ? Int(parts[1]) : 0,
              parts.count == 1 || parts[1].count == 2, minutes < 60, hours < 24 || (hours == 24 && minutes == 0) else { return nil }
        return hours * 60 + minutes
    }
}

private extension StringProtocol {
    /// Without the `characters` at either end.
    func strippingEdges(_ characters: String) -> String {
        String(self.drop { characters.contains($0) }.reversed().drop { characters.contains($0) }.reversed())
    }
}
