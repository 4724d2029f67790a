/// `?q=ip`'s offers of one item, read and written out once per snapshot
/// (`OpenSnapshot.itemOffers`): everything in an answer's entry but the
/// distance is the same for every client. A request then only measures,
/// sorts and copies bytes.
///
/// `q=ip` read the item's offers (500 at a national item), looked each
/// pharmacy up by its id and formatted each price on every request:
/// together about a third of its CPU under wrk (perf, `make bench-serve`),
/// which kept its p99 near 10 ms at 16 connections on this machine's two
/// cores. A popular item is asked for again and again; an item asked for
/// once costs one read, as before.
struct ItemOffers: Sendable {
    /// Per offer, in the order read.
    private(set) var pharmacies: [PharmacyDirectory.Index] = []
    /// Units in stock; nil where the pharmacy reports prices only.
    private(set) var quantities: [Int64?] = []
    /// Each offer's fields but the distance (`"i":…,"pi":…,"n":…,"p":…,"q":…`), one after another.
    private(set) var rendered: [UInt8] = []
    /// Where each offer's fields are in `rendered`.
    private(set) var fields: [Range<Int>] = []

    var count: Int { pharmacies.count }

    /// About the bytes it holds: the cache's unit (`OpenSnapshot`).
    var bytesHeld: Int { rendered.count + count * (MemoryLayout<Int>.stride * 3 + MemoryLayout<Int64?>.stride) }

    /// `rows`: the item's offers with their pharmacies' places in `directory` (`SnapshotReader.offers(of:in:)`).
    init(aptcode: String, rows: [(pharmacy: PharmacyDirectory.Index, priceCents: Int64, quantity: Int64?)], directory: PharmacyDirectory,
         prices: PriceFormat) {
        var item = JSONWriter(capacity: 32)
        item.field("i", aptcode)
        var writer = JSONWriter(capacity: rows.count * 96)
        directory.rendered.withUnsafeBufferPointer { pharmacyFields in
            item.withBytes { itemField in
                for row in rows {
                    let pharmacy = row.pharmacy
                    let start = writer.count
                    writer.fields(itemField)
                    writer.fields(UnsafeBufferPointer(rebasing: pharmacyFields[directory.offerFields[pharmacy]]))
                    writer.field("p", unescaped: { prices.append(row.priceCents, to: &$0) })
                    writer.field("q", unescaped: { writer in
                        guard let quantity = row.quantity else { return }
                        if quantity < 0 { writer.append(UInt8(ascii: "-")) }
                        ReadAPIFormat.appendDecimal(quantity.magnitude, to: &writer)
                    })
                    writer.endFields()
                    pharmacies.append(pharmacy)
                    quantities.append(row.quantity)
                    fields.append(start..<writer.count)
                }
            }
        }
        rendered = writer.bytes
    }
}
