import Foundation
import IngestCore

/// A snapshot's pharmacies as the read queries keep them in memory, with
/// all that does not depend on the request already done: each pharmacy's
/// JSON fields rendered and escaped into one byte arena, its rank by name,
/// its region's rank. A request then measures distances, sorts small keys
/// and copies bytes.
///
/// Plain arrays of values, one per pharmacy, in place of an object per
/// pharmacy: formatting, escaping and sorting whole entries per request kept
/// the p99 of the two 500-entry answers (`?q=p`, `?q=ip`) at 90–110 ms under
/// wrk (`make bench-serve`), and with an object per pharmacy the two cores
/// still spent a sixth of their time counting references to the same
/// objects.
struct PharmacyDirectory: Sendable {
    /// A pharmacy's place in the arrays below.
    typealias Index = Int

    let ids: [String]
    let names: [String]
    /// Where each pharmacy is, its latitude's cosine worked out (nil: the registry gives no position).
    let positions: [MeasuredPoint?]
    /// Rank by (name, id): the order without a distance, and the tie-break between equal distances.
    let nameRanks: [Int]
    /// Rank of the pharmacy's region among `regions`.
    let regionRanks: [Int]
    /// Every region name, sorted: READ_API.md lists regions in name order.
    let regions: [String]
    let indexByID: [String: Index]
    /// Every id's bytes in byte order, and the pharmacy each is: an offer
    /// read from SQLite finds its pharmacy by a binary search on the
    /// column's bytes (`index(ofID:)`), with no `String` made and hashed
    /// for each of the thousand offers of an uncached `?q=eq` or `?q=ip`.
    private let idBytes: [[UInt8]]
    private let idBytesIndex: [Index]
    /// The rendered fields of every pharmacy, one after another.
    let rendered: [UInt8]
    /// `"i":…,"n":…,"d":…,"p":…,"a":…,"c":…,"o":…,"l":…,"ic":…,"s":…` of `?q=p`, in `rendered`.
    let listFields: [Range<Int>]
    /// `"pi":…,"n":…` of `?q=ip`, in `rendered`.
    let offerFields: [Range<Int>]
    /// `"d":…,"s":…` of an offer in `?q=ip` and `?q=eq` (Version 3): its export date and whether it is carried over.
    let ageFields: [Range<Int>]
    /// Weekly opening hours (Version 3): nil where unknown (free text, none given).
    let hours: [OpeningHours?]
    /// Per pharmacy and weekday (`pharmacy * 7 + weekday - 1`): that day's
    /// openings as minutes, and its `"oh":…` field rendered in `rendered`.
    /// Worked out once: making the day's text for 500 pharmacies on every
    /// `q=p` or `q=ip` was a third of their time under wrk.
    /// Flat: no array per day to retain and release on every look-up.
    private let dayOpenings: [Range<Int>]
    private let hoursKnown: [Bool]
    private let openingMinutes: [Range<Int>]
    private let dayFields: [Range<Int>]
    /// Whether each pharmacy is open, for every stretch of the week in
    /// which no pharmacy opens or closes: `boundaries[weekday - 1]` holds
    /// the minutes of that day where any opening starts or ends, and the
    /// stretch before the day's k-th boundary is row `rowStarts[weekday - 1]
    /// + k` of `openStates` (`count` bytes a row: 1 open, 0 closed, 2
    /// unknown). An answer finds its row once; each entry is then one load
    /// (looking through each pharmacy's openings was 5 % of `q=p`'s CPU).
    private let boundaries: [[Int]]
    private let rowStarts: [Int]
    private let openStates: [UInt8]
    /// When its offers were exported (`last_refresh`), seconds since 1970; nil when unknown.
    let exportedAt: [Int64?]

    var count: Int { names.count }

    /// The stretch of the week `moment` falls in: where its open states start in `openStates`.
    struct OpenStateRow {
        fileprivate let start: Int
    }

    func openStateRow(at moment: RequestMoment) -> OpenStateRow {
        let day = boundaries[moment.weekday - 1]
        // The boundaries at or before the minute: an opening contains its start and not its end.
        var low = 0, high = day.count
        while low < high {
            let middle = (low + high) / 2
            if day[middle] <= moment.minute { low = middle + 1 } else { high = middle }
        }
        return OpenStateRow(start: (rowStarts[moment.weekday - 1] + low) * count)
    }

    /// Whether open in `row`; nil when its hours are unknown.
    func isOpen(_ pharmacy: Index, in row: OpenStateRow) -> Bool? {
        switch openStates[row.start + pharmacy] {
        case 1: true
        case 0: false
        default: nil
        }
    }

    /// `on` in `row`: "1" open, "0" closed, "" unknown (READ_API.md, Version 3).
    func openNow(_ pharmacy: Index, in row: OpenStateRow) -> StaticString {
        switch openStates[row.start + pharmacy] {
        case 1: "1"
        case 0: "0"
        default: ""
        }
    }

    /// `"oh":…`, the day's hours as text ("" closed all day or unknown), rendered.
    func hoursField(_ pharmacy: Index, at moment: RequestMoment) -> Range<Int> {
        dayFields[pharmacy * 7 + moment.weekday - 1]
    }

    /// Whether the pharmacy passes `when` at `moment`: open then, if asked;
    /// its offers exported within `maxAgeDays` days of 24 hours (unknown age: never within).
    func admits(_ pharmacy: Index, _ when: borrowing ReadQuery.When, at moment: borrowing RequestMoment, in row: OpenStateRow, offers: Bool) -> Bool {
        if when.openNow, isOpen(pharmacy, in: row) != true { return false }
        if offers, let days = when.maxAgeDays {
            guard let exported = exportedAt[pharmacy] else { return false }
            if Int64(moment.date.timeIntervalSince1970) - exported > Int64(days) * 86_400 { return false }
        }
        return true
    }

    /// The pharmacy whose id is these UTF-8 bytes; nil for none.
    func index(ofID bytes: UnsafeRawBufferPointer) -> Index? {
        var low = 0, high = idBytes.count
        while low < high {
            let middle = (low + high) / 2
            let order = idBytes[middle].withUnsafeBytes { Self.compare($0, bytes) }
            if order == 0 { return idBytesIndex[middle] }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// memcmp's order on byte strings, the shorter first on a common prefix.
    static func compare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
        let common = min(left.count, right.count)
        if common > 0, let l = left.baseAddress, let r = right.baseAddress {
            let order = Int(memcmp(l, r, common))
            if order != 0 { return order }
        }
        return left.count - right.count
    }

    /// Metres from the client to the pharmacy; nil without either position.
    func metres(from near: MeasuredPoint?, to pharmacy: Index) -> Double? {
        guard let near, let position = positions[pharmacy] else { return nil }
        return near.metres(to: position)
    }

    /// `hours`: the snapshot's `pharmacy_hours` by pharmacy id (nil: a file
    /// without the table, whose `open_hours` text is read here instead).
    init(_ rows: [PharmacyRow], hours: [String: OpeningHours]? = nil) {
        ids = rows.map(\.id)
        let parsedHours: [OpeningHours?] = rows.map { row in
            guard let hours else {
                if case .success(let parsed) = OpeningHours.parse(row.openHours) { return parsed }
                return nil
            }
            // The table holds no rows for text that was not read, nor for a pharmacy closed all week (`Mo-Su off`):
            // the text tells which.
            if let known = hours[row.id] { return known }
            if case .success(let parsed?) = OpeningHours.parse(row.openHours), parsed.intervals.isEmpty { return parsed }
            return nil
        }
        self.hours = parsedHours
        hoursKnown = parsedHours.map { $0 != nil }
        exportedAt = rows.map { row in row.lastRefresh.flatMap { ExportTimestamp.parseISO8601($0)?.epochSeconds } }
        names = rows.map(\.name)
        positions = rows.map { $0.position.map(MeasuredPoint.init) }
        let byName = rows.indices.sorted { (rows[$0].name, rows[$0].id) < (rows[$1].name, rows[$1].id) }
        var nameRanks = [Int](repeating: 0, count: rows.count)
        for (rank, index) in byName.enumerated() { nameRanks[index] = rank }
        self.nameRanks = nameRanks
        regions = Set(rows.map(\.region)).sorted()
        let regionRank = Dictionary(uniqueKeysWithValues: regions.enumerated().map { ($1, $0) })
        regionRanks = rows.map { regionRank[$0.region]! }
        // A snapshot's ids are unique (its primary key); should one repeat, the first wins.
        indexByID = Dictionary(rows.indices.map { (rows[$0].id, $0) }, uniquingKeysWith: { first, _ in first })
        // Sorted, then the first of equal ids kept, as above.
        let byBytes = rows.indices.map { (Array(rows[$0].id.utf8), $0) }.sorted { $0.0.lexicographicallyPrecedes($1.0) || ($0.0 == $1.0 && $0.1 < $1.1) }
        let unique = byBytes.indices.filter { $0 == 0 || byBytes[$0 - 1].0 != byBytes[$0].0 }.map { byBytes[$0] }
        idBytes = unique.map(\.0)
        idBytesIndex = unique.map(\.1)

        var writer = JSONWriter(capacity: rows.count * 256)
        var listFields: [Range<Int>] = [], offerFields: [Range<Int>] = [], ageFields: [Range<Int>] = []
        var dayOpenings: [Range<Int>] = [], openingMinutes: [Range<Int>] = [], dayFields: [Range<Int>] = []
        for row in rows {
            var start = writer.count
            writer.field("i", row.id)
            writer.field("n", row.name)
            writer.field("d", ReadAPIFormat.day(row.lastRefresh))
            writer.field("p", row.phone)
            writer.field("a", row.address)
            writer.field("c", row.chainID)
            writer.field("o", row.openHours)
            writer.field("l", ReadAPIFormat.position(latitude: row.position?.latitude, longitude: row.position?.longitude))
            // Version 2: the size of its price list, and whether its data is carried over.
            writer.field("ic", String(row.itemCount))
            writer.field("s", row.stale ? "1" : "0")
            listFields.append(start..<writer.count)
            writer.endFields()
            start = writer.count
            writer.field("pi", row.id)
            writer.field("n", row.name)
            offerFields.append(start..<writer.count)
            writer.endFields()
            start = writer.count
            writer.field("d", ReadAPIFormat.day(row.lastRefresh))
            writer.field("s", row.stale ? "1" : "0")
            ageFields.append(start..<writer.count)
            writer.endFields()
            for weekday in 1...7 {
                let hours = parsedHours[dayFields.count / 7]
                let first = openingMinutes.count
                openingMinutes += hours?.intervals.filter { $0.weekday == weekday }.map { $0.opens..<$0.closes } ?? []
                dayOpenings.append(first..<openingMinutes.count)
                start = writer.count
                writer.field("oh", hours?.text(weekday: weekday) ?? "")
                dayFields.append(start..<writer.count)
                writer.endFields()
            }
        }
        rendered = writer.bytes
        (self.listFields, self.offerFields, self.ageFields) = (listFields, offerFields, ageFields)
        (self.dayOpenings, self.openingMinutes, self.dayFields) = (dayOpenings, openingMinutes, dayFields)
        var boundaries: [[Int]] = []
        var rowStarts: [Int] = []
        var openStates: [UInt8] = []
        for weekday in 1...7 {
            var minutes = Set<Int>()
            for pharmacy in rows.indices {
                for opening in dayOpenings[pharmacy * 7 + weekday - 1] {
                    minutes.insert(openingMinutes[opening].lowerBound)
                    minutes.insert(openingMinutes[opening].upperBound)
                }
            }
            let day = minutes.sorted()
            rowStarts.append(boundaries.reduce(0) { $0 + $1.count + 1 })
            boundaries.append(day)
            // Row k: the stretch from the (k-1)-th boundary (or midnight) to the k-th; its first minute decides.
            for first in [0] + day {
                for pharmacy in rows.indices {
                    let open = hoursKnown[pharmacy] ? dayOpenings[pharmacy * 7 + weekday - 1].contains { openingMinutes[$0].contains(first) } : nil
                    openStates.append(open.map { $0 ? 1 : 0 } ?? 2)
                }
            }
        }
        (self.boundaries, self.rowStarts, self.openStates) = (boundaries, rowStarts, openStates)
    }
}
