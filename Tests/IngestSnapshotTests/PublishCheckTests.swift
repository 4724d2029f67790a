import Foundation
import IngestCore
import IngestTestSupport
import Testing
@testable import IngestSnapshot

/// The check before publishing catches each damage it is there for, on a
/// staging file damaged on purpose, and passes a sound one.
@Suite struct PublishCheckTests {
    /// A small snapshot as the writer leaves it, and the writer's digest of its offers.
    private func stage(_ temporary: TemporaryDirectory) throws -> (path: String, offers: TableDigest) {
        let path = "\(temporary.path)/staging.sqlite"
        let writer = try SnapshotWriter(path: path)
        for pharmacy in ["1", "2", "3"] {
            try writer.writeOffers(pharmacyID: pharmacy, (0..<200).map { OfferRow(aptcode: String(format: "A%04d", $0), priceCents: Int64($0 + 1), priceSince: "2026-01-01T00:00:00+02:00", quantity: 1) })
        }
        try writer.deleteOffers(pharmacyID: "2") // a row taken out again leaves the digest right
        try writer.insertOffers(pharmacyID: "2", [OfferRow(aptcode: "B", priceCents: 7, priceSince: "2026-01-01T00:00:00+02:00", quantity: nil)])
        try writer.writeItems((0..<200).map {
            ItemRow(aptcode: String(format: "A%04d", $0), packageCode: nil, gtin: "0474\($0)", name: "TOODE \($0)", producer: "TOOTJA",
                    atc: "N02BE01", activeSubstance: "paracetamol")
        })
        try writer.writeMeta(["schema_version": "1"])
        try writer.finish()
        #expect(try PublishCheck.searchIndexProblems(in: writer.database) == nil)
        let digest = writer.offersDigest
        try writer.close()
        return (path, digest)
    }

    private func problems(_ path: String, _ offers: TableDigest?) throws -> String? {
        try PublishCheck.problems(path: path, offers: offers)
    }

    @Test func aSoundSnapshotPassesAndEachIndexIsScannedOnItsOwn() throws {
        let temporary = TemporaryDirectory()
        let (path, offers) = try stage(temporary)
        #expect(offers.text.hasPrefix("401:"))
        #expect(try problems(path, offers) == nil)
        let database = try SQLiteDatabase(path: path, readOnly: true)
        func plan(_ sql: String) throws -> String {
            let statement = try database.prepare("EXPLAIN QUERY PLAN " + sql)
            var details: [String] = []
            while try statement.step() { details.append(statement.string(3) ?? "") }
            return details.joined(separator: "; ")
        }
        #expect(try plan("SELECT ingest_check_digest(aptcode, pharmacy_id, price_cents) FROM offers INDEXED BY offers_by_item") == "SCAN offers USING COVERING INDEX offers_by_item")
        let tableQuery = try PublishCheck.tableScanSQL(database, "offers", digests: [["aptcode", "pharmacy_id", "price_cents"], PublishCheck.offersColumns])
        #expect(try plan(tableQuery) == "SCAN offers", "the table's own b-tree")
    }

    /// The classic: the index hidden from the schema while a row is deleted, then put back.
    @Test func aRowMissingFromItsTableButNotItsIndexIsCaught() throws {
        let temporary = TemporaryDirectory()
        let (path, offers) = try stage(temporary)
        let database = try SQLiteDatabase(path: path)
        let entry = try database.strings("SELECT quote(type) || ',' || quote(name) || ',' || quote(tbl_name) || ',' || rootpage || ',' || quote(sql) FROM sqlite_schema WHERE name = 'offers_by_item'")[0]
        try database.execute("PRAGMA writable_schema = ON; DELETE FROM sqlite_schema WHERE name = 'offers_by_item'")
        try database.close()
        let again = try SQLiteDatabase(path: path)
        try again.execute("DELETE FROM offers WHERE pharmacy_id = '3' AND aptcode = 'A0100'")
        try again.execute("PRAGMA writable_schema = ON; INSERT INTO sqlite_schema VALUES (\(entry))")
        try again.close()
        let found = try #require(try problems(path, offers))
        #expect(found.contains("index offers_by_item holds 401:"), "\(found)")
        #expect(found.contains("its table offers 400:"))
        #expect(found.contains("offers holds 400:"), "and it is not what the writer inserted")
    }

    /// Table and index changed together: only the writer's digest sees it.
    @Test func aRowChangedBehindTheWritersBackIsCaught() throws {
        let temporary = TemporaryDirectory()
        let (path, offers) = try stage(temporary)
        let database = try SQLiteDatabase(path: path)
        try database.execute("UPDATE offers SET price_cents = 999 WHERE pharmacy_id = '1' AND aptcode = 'A0005'")
        try database.close()
        #expect(try problems(path, nil) == nil, "sound as a file")
        let found = try #require(try problems(path, offers))
        #expect(found.hasPrefix("offers holds 401:") && found.hasSuffix(", the writer inserted \(offers.text)"))
    }

    @Test func aCorruptedPageIsCaughtByQuickCheck() throws {
        let temporary = TemporaryDirectory()
        let (path, offers) = try stage(temporary)
        // A page of rows (offers' root), not an empty table's: its cell pointers overwritten.
        let root = try #require(try SnapshotQuery(path).int("SELECT rootpage FROM sqlite_schema WHERE name = 'offers'"))
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let pageSize: UInt64 = 4096
        try handle.seek(toOffset: pageSize * UInt64(root - 1) + 8)
        try handle.write(contentsOf: Data(repeating: 0xFF, count: 64))
        try handle.close()
        let found: String?
        do { found = try problems(path, offers) } catch let error as SQLiteError { found = "\(error)" }
        #expect(found != nil)
        #expect(found?.contains("quick_check") == true || found?.contains("malformed") == true, "\(found ?? "")")
    }

    @Test func aSearchIndexOutOfStepIsCaught() throws {
        let temporary = TemporaryDirectory()
        let (path, _) = try stage(temporary)
        let database = try SQLiteDatabase(path: path)
        try database.execute("DELETE FROM items_search_data WHERE id > 10")
        let found = try #require(try PublishCheck.searchIndexProblems(in: database))
        #expect(found.hasPrefix("items_search: "))
    }
}
