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
    /// The rendered fields of every pharmacy, one after another.
    let rendered: [UInt8]
    /// `"i":…,"n":…,"d":…,"p":…,"a":…,"c":…,"o":…,"l":…,"ic":…,"s":…` of `?q=p`, in `rendered`.
    let listFields: [Range<Int>]
    /// `"pi":…,"n":…` of `?q=ip`, in `rendered`.
    let offerFields: [Range<Int>]

    var count: Int { names.count }

    /// Metres from the client to the pharmacy; nil without either position.
    func metres(from near: MeasuredPoint?, to pharmacy: Index) -> Double? {
        guard let near, let position = positions[pharmacy] else { return nil }
        return near.metres(to: position)
    }

    init(_ rows: [PharmacyRow]) {
        ids = rows.map(\.id)
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

        var writer = JSONWriter(capacity: rows.count * 256)
        var listFields: [Range<Int>] = [], offerFields: [Range<Int>] = []
        for row in rows {
            var start = writer.bytes.count
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
            listFields.append(start..<writer.bytes.count)
            writer.endFields()
            start = writer.bytes.count
            writer.field("pi", row.id)
            writer.field("n", row.name)
            offerFields.append(start..<writer.bytes.count)
            writer.endFields()
        }
        rendered = writer.bytes
        (self.listFields, self.offerFields) = (listFields, offerFields)
    }
}
