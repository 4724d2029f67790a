import IngestTestSupport
import Testing
@testable import IngestSnapshot

@Suite struct SnapshotIntegrityCheckTests {
    @Test func cacheHoldsOneSweepOfTheItemIndexWithinTheBudget() {
        // 10,000 items: 15,000 leaf and interior pages plus the small tables.
        #expect(SnapshotIntegrityCheck.cachePages(items: 10_000, pageSize: 4096) == 16_024)
        // A sweep that would not fit keeps SQLite's default: a thrashing cache is slower than none.
        #expect(SnapshotIntegrityCheck.cachePages(items: 100_000, pageSize: 4096) == nil)
        #expect(SnapshotIntegrityCheck.cachePages(items: nil, pageSize: 4096) == nil)
        #expect(SnapshotIntegrityCheck.cachePages(items: 0, pageSize: 4096) == nil)
    }

    @Test func findsADamagedIndex() throws {
        let temporary = TemporaryDirectory()
        let path = "\(temporary.path)/s.sqlite"
        let writer = try SnapshotWriter(path: path)
        try writer.writeOffers(pharmacyID: "1", [OfferRow(aptcode: "A", priceCents: 100, priceSince: "2026-01-01T00:00:00+02:00", quantity: 1)])
        try writer.writeItems([ItemRow(aptcode: "A", packageCode: nil, gtin: nil, name: "A", producer: nil, atc: nil, activeSubstance: nil)])
        try writer.finish()
        try writer.close()
        let database = try SQLiteDatabase(path: path)
        #expect(try SnapshotIntegrityCheck.problems(in: database) == nil)
        // An index entry whose row is gone: what integrity_check exists to catch.
        try database.execute("PRAGMA writable_schema = ON")
        try database.execute("UPDATE sqlite_schema SET sql = replace(sql, 'price_100_cents)', 'price_100_cents) WHERE 0') WHERE name = 'offers_by_item'")
        try database.close()
        let reopened = try SQLiteDatabase(path: path)
        defer { withExtendedLifetime(reopened) {} } // closed when it goes
        #expect(try SnapshotIntegrityCheck.problems(in: reopened) != nil)
    }
}
