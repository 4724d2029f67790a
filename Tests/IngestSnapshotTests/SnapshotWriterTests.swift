import IngestTestSupport
import Testing
@testable import IngestSnapshot

@Suite struct SnapshotWriterTests {
    private func withWriter(_ body: (SnapshotWriter) throws -> Void) throws -> SnapshotQuery {
        let temporary = TemporaryDirectory()
        let path = "\(temporary.path)/s.sqlite"
        let writer = try SnapshotWriter(path: path)
        try body(writer)
        try writer.finish()
        try writer.close()
        return try withExtendedLifetime(temporary) { try SnapshotQuery(path) }
    }

    @Test func theCoreSchemaHasTheCoreTablesAndNoOthers() throws {
        let query = try withWriter { _ in }
        let tables = query.rows("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'virtual') AND name NOT LIKE 'sqlite_%' ORDER BY name").map { $0[0]! }
        #expect(tables == ["items", "items_folded", "items_search", "items_substring", "meta", "offers", "pharmacies", "pharmacy_hours", "price_history"])
    }

    @Test func offersOutOfKeyOrderAreRefused() throws {
        let temporary = TemporaryDirectory()
        let writer = try SnapshotWriter(path: "\(temporary.path)/s.sqlite")
        try writer.writeOffers(pharmacyID: "5060", [OfferRow(aptcode: "B", priceCents: 1, priceSince: "2026-01-01T00:00:00+02:00", quantity: 1)])
        #expect(throws: SnapshotWriter.OutOfOrder.self) {
            try writer.writeOffers(pharmacyID: "5060", [OfferRow(aptcode: "A", priceCents: 1, priceSince: "2026-01-01T00:00:00+02:00", quantity: 1)])
        }
        // Byte order: "31937" sorts before "5060".
        #expect(throws: SnapshotWriter.OutOfOrder.self) {
            try writer.writeOffers(pharmacyID: "31937", [OfferRow(aptcode: "Z", priceCents: 1, priceSince: "2026-01-01T00:00:00+02:00", quantity: 1)])
        }
        try writer.close()
    }

    @Test func searchFoldsCaseAndFindsEstonianLetters() throws {
        let query = try withWriter { writer in
            try writer.writeItems([
                ItemRow(aptcode: "A1", packageCode: nil, gtin: nil, name: "IBUMETIN TBL 400MG N10", producer: "NYCOMED", atc: nil, activeSubstance: "Ibuprofenum"),
                ItemRow(aptcode: "A2", packageCode: nil, gtin: nil, name: "ŠAMPOON ÕRN 200ML", producer: "ŽIRAF OÜ", atc: nil, activeSubstance: nil),
            ])
        }
        #expect(query.rows("SELECT aptcode FROM items_search WHERE items_search MATCH 'ibu*'").map { $0[0] } == ["A1"])
        #expect(query.rows("SELECT aptcode FROM items_search WHERE items_search MATCH 'õrn'").map { $0[0] } == ["A2"])
        #expect(query.rows("SELECT aptcode FROM items_search WHERE items_search MATCH 'šamp*'").map { $0[0] } == ["A2"])
        #expect(query.rows("SELECT aptcode FROM items_search WHERE items_search MATCH 'žiraf'").map { $0[0] } == ["A2"])
        // The substring index answers a search box that quotes each word, as Datasette's does.
        for (words, found) in [("\"ibu\"", ["A1"]), ("\"õrn\"", ["A2"]), ("\"ÕRN\" \"amp\"", ["A2"]), ("\"400mg\"", ["A1"]), ("\"iraf o\"", ["A2"])] {
            #expect(query.rows("""
                SELECT aptcode FROM items WHERE rowid IN (SELECT rowid FROM items_substring WHERE items_substring MATCH '\(words)')
                """).map { $0[0] } == found, "\(words)")
        }
    }

    /// The planner's statistics for offers come from the writer's counts, not
    /// an ANALYZE pass: they must match what ANALYZE would have found, and an
    /// item's offers must still be read through offers_by_item.
    @Test func offerStatisticsComeFromTheWritersCounts() throws {
        let query = try withWriter { writer in
            for pharmacy in ["1", "2", "3"] {
                try writer.writeOffers(pharmacyID: pharmacy, ["A", "B"].map { OfferRow(aptcode: $0, priceCents: 100, priceSince: "2026-01-01T00:00:00+02:00", quantity: 1) })
            }
            try writer.writeOffers(pharmacyID: "4", [OfferRow(aptcode: "A", priceCents: 100, priceSince: "2026-01-01T00:00:00+02:00", quantity: 1)])
            try writer.writeItems(["A", "B"].map {
                ItemRow(aptcode: $0, packageCode: nil, gtin: nil, name: $0, producer: nil, atc: nil, activeSubstance: nil)
            })
        }
        // 7 offers, 4 pharmacies (2 each, rounded up), 2 items (4 each, rounded up).
        #expect(query.value("SELECT stat FROM sqlite_stat1 WHERE tbl = 'offers' AND idx = 'offers'") == "7 2 1")
        #expect(query.value("SELECT stat FROM sqlite_stat1 WHERE tbl = 'offers' AND idx = 'offers_by_item'") == "7 4 1 1")
        // The other tables are analysed as usual: items' key and its three indexes (GTIN, package code, ATC).
        #expect(query.value("SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'items'") == "4")
        let plan = query.rows("EXPLAIN QUERY PLAN SELECT pharmacy_id FROM offers WHERE aptcode = 'A' ORDER BY price_cents")
            .map { $0.last! ?? "" }.joined(separator: " | ")
        #expect(plan.contains("offers_by_item"), "\(plan)")
    }

    /// Offers with and without tiers, interleaved within one pharmacy, read
    /// back exactly.
    @Test func offersWithAndWithoutTiersReadBackExactly() throws {
        let query = try withWriter { writer in
            try writer.writeOffers(pharmacyID: "1", [
                OfferRow(aptcode: "A", priceCents: 100, priceSince: "2026-01-01T00:00:00+02:00", quantity: 2),
                OfferRow(aptcode: "B", priceCents: 250, priceSince: "2026-01-01T00:00:00+02:00", quantity: 0, limitPriceCents: 200, price50Cents: 175,
                         price75Cents: 113, price90Cents: 75, price100Cents: 50),
                OfferRow(aptcode: "C", priceCents: 99, priceSince: "2026-01-01T00:00:00+02:00", quantity: 7),
            ])
        }
        let rows = query.rows("SELECT aptcode, price_cents, quantity, limit_price_cents, price_50_cents, price_75_cents, price_90_cents, price_100_cents FROM offers ORDER BY aptcode")
        #expect(rows == [
            ["A", "100", "2", nil, nil, nil, nil, nil],
            ["B", "250", "0", "200", "175", "113", "75", "50"],
            ["C", "99", "7", nil, nil, nil, nil, nil],
        ])
    }

    /// Whole groups of offers go through the multi-row insert, the rest one
    /// by one: across two pharmacies (the second rebinds the pharmacy) every
    /// row reads back exactly, aptcodes of any length included.
    @Test func batchedAndSingleRowInsertsReadBackExactly() throws {
        let batch = OfferBatchInsert.batchRows
        func rows(count: Int) -> [OfferRow] {
            (0..<count).map { index in
                let aptcode = "A" + String(format: "%05d", index) + String(repeating: "x", count: index % 40)
                return index % 3 == 0
                    ? OfferRow(aptcode: aptcode, priceCents: Int64(index), priceSince: "2026-01-01T00:00:00+02:00", quantity: Int64(index % 7), limitPriceCents: Int64(index + 1),
                               price50Cents: Int64(index + 2), price75Cents: nil, price90Cents: Int64(index + 4), price100Cents: Int64(index + 5))
                    : OfferRow(aptcode: aptcode, priceCents: Int64(index), priceSince: "2026-01-01T00:00:00+02:00", quantity: Int64(index % 7))
            }
        }
        let first = rows(count: batch * 2 + 5)
        let second = rows(count: batch)
        let query = try withWriter { writer in
            try writer.writeOffers(pharmacyID: "1", first)
            try writer.writeOffers(pharmacyID: "2", second)
        }
        func text(_ value: Int64?) -> String? { value.map { String($0) } }
        var expected: [[String?]] = []
        for (pharmacy, rows) in [("1", first), ("2", second)] {
            for row in rows {
                expected.append([pharmacy, row.aptcode, text(row.priceCents), text(row.quantity), text(row.limitPriceCents),
                                 text(row.price50Cents), text(row.price75Cents), text(row.price90Cents), text(row.price100Cents)])
            }
        }
        #expect(query.rows("""
            SELECT pharmacy_id, aptcode, price_cents, quantity, limit_price_cents, price_50_cents, price_75_cents, price_90_cents, price_100_cents
            FROM offers ORDER BY pharmacy_id, aptcode
            """) == expected)
    }
}
