import Foundation
import IngestCore
import IngestGenerator
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// The diff's merge of the two offers tables gives what SQL's lookups give,
/// on keys that sort differently as bytes and as Swift strings.
@Suite struct SnapshotDiffTests {
    private typealias Offer = (pharmacy: String, aptcode: String, cents: Int64, limit: Int64?)

    private func snapshot(_ path: String, _ offers: [Offer]) throws {
        let writer = try SnapshotWriter(path: path, schema: BuiltInFormats.schema)
        let byPharmacy = Dictionary(grouping: offers, by: \.pharmacy)
        for pharmacy in byPharmacy.keys.sorted(by: precedesInByteOrder) {
            let rows = byPharmacy[pharmacy]!.sorted { precedesInByteOrder($0.aptcode, $1.aptcode) }
            try writer.writeOffers(pharmacyID: pharmacy, rows.map { OfferRow(aptcode: $0.aptcode, priceCents: $0.cents, priceSince: "2026-01-01T00:00:00+02:00", quantity: 1, limitPriceCents: $0.limit) })
        }
        try writer.writeMeta(["schema_version": "1"])
        try writer.finish()
        try writer.close()
    }

    @Test func theMergeAgreesWithSQL() throws {
        let temporary = TemporaryDirectory()
        // Byte order puts "10" between "1" and "2", "Z" before "a", and "Õ" (0xC3 0x95) after every ASCII key.
        let keys = ["1", "10", "2", "Z", "a", "Õ"]
        var old: [Offer] = []
        var new: [Offer] = []
        var random = SeededRandom(rawState: 19)
        for pharmacy in keys {
            for aptcode in keys + ["AB", "A"] {
                let cents = Int64.random(in: 100...999, using: &random)
                let limit: Int64? = Bool.random(using: &random) ? cents - 50 : nil
                switch Int.random(in: 0..<6, using: &random) {
                case 0: old.append((pharmacy, aptcode, cents, limit))                                   // removed
                case 1: new.append((pharmacy, aptcode, cents, limit))                                   // added
                case 2: old.append((pharmacy, aptcode, cents, limit)); new.append((pharmacy, aptcode, cents + 7, limit))
                case 3: old.append((pharmacy, aptcode, cents, limit)); new.append((pharmacy, aptcode, cents, limit == nil ? 10 : nil))
                default: old.append((pharmacy, aptcode, cents, limit)); new.append((pharmacy, aptcode, cents, limit))
                }
            }
        }
        try snapshot("\(temporary.path)/old.sqlite", old)
        try snapshot("\(temporary.path)/new.sqlite", new)
        let diff = try SnapshotDiff.compute(old: "\(temporary.path)/old.sqlite", oldLabel: "old", new: "\(temporary.path)/new.sqlite", newLabel: "new")

        // The oracle: SQL lookups, as the diff computed them before.
        let database = try SQLiteDatabase(path: "\(temporary.path)/new.sqlite", readOnly: true)
        try database.execute("ATTACH DATABASE '\(temporary.path)/old.sqlite' AS old")
        func count(_ sql: String) throws -> Int { Int(try database.scalarInt(sql) ?? -1) }
        let join = "FROM main.offers n JOIN old.offers o ON o.pharmacy_id = n.pharmacy_id AND o.aptcode = n.aptcode"
        #expect(diff.offersAdded == (try count("SELECT count(*) FROM main.offers n WHERE NOT EXISTS (SELECT 1 FROM old.offers o WHERE o.pharmacy_id = n.pharmacy_id AND o.aptcode = n.aptcode)")))
        #expect(diff.offersRemoved == (try count("SELECT count(*) FROM old.offers o WHERE NOT EXISTS (SELECT 1 FROM main.offers n WHERE n.pharmacy_id = o.pharmacy_id AND n.aptcode = o.aptcode)")))
        #expect(diff.priceChanges == (try count("SELECT count(*) \(join) WHERE o.price_cents != n.price_cents")))
        #expect(diff.limitPriceChanges == (try count("SELECT count(*) \(join) WHERE o.limit_price_cents IS NOT n.limit_price_cents")))
        #expect(diff.offersAdded + diff.offersRemoved + diff.priceChanges > 0)
        #expect(diff.priceChangeHistogram.map(\.count).reduce(0, +) == diff.priceChanges)
        try database.close()
    }
}
