import Foundation
import IngestCore
import IngestTestSupport
import Testing
@testable import IngestSnapshot

/// The publish check's scan of `offers` run while the writer builds the
/// indexes: what it finds is what the check finds in the finished file, the
/// writer cannot change the table behind it, and a scan that does not fit
/// the finished file is not used.
@Suite struct EarlyTableScanTests {
    private static let since = "2026-01-01T00:00:00+02:00"

    /// A snapshot written up to its committed load, many pages of offers so
    /// the index build writes while the scan reads.
    private func load(_ path: String) throws -> SnapshotWriter {
        let writer = try SnapshotWriter(path: path)
        for pharmacy in 0..<40 {
            var rows: [OfferRow] = []
            for item in 0..<500 {
                let quantity: Int64? = item % 7 == 0 ? nil : Int64(item % 13)
                rows.append(OfferRow(aptcode: String(format: "A%05d", item), priceCents: Int64(pharmacy * 1000 + item + 1),
                                     priceSince: Self.since, quantity: quantity))
            }
            try writer.writeOffers(pharmacyID: String(format: "P%03d", pharmacy), rows)
        }
        try writer.writeItems((0..<500).map {
            ItemRow(aptcode: String(format: "A%05d", $0), packageCode: nil, gtin: "0474\($0)", name: "TOODE \($0)", producer: "TOOTJA",
                    atc: "N02BE01", activeSubstance: "paracetamol")
        })
        try writer.writeMeta(["schema_version": "5"])
        try writer.commitLoad()
        return writer
    }

    /// The scan started on the committed load, the indexes built beside it,
    /// the writer closed; the scan and the writer's digest of the offers.
    private func scanWhileFinishing(_ path: String, writerDigest: Bool = true) throws -> (scan: EarlyTableScan, offers: TableDigest) {
        let writer = try load(path)
        let scan = try EarlyTableScan(path: path, table: "offers", schema: writer.schema, writerDigest: writerDigest)
        try writer.finish()
        let offers = writer.offersDigest
        try writer.close()
        return (scan, offers)
    }

    @Test func theScanDuringTheIndexBuildIsTheCheckOfTheFinishedFile() throws {
        let temporary = TemporaryDirectory()
        let path = "\(temporary.path)/staging.sqlite"
        let (scan, offers) = try scanWhileFinishing(path)

        let early = try PublishCheck.check(path: path, offers: offers, scanned: [scan])
        let late = try PublishCheck.check(path: path, offers: offers)
        #expect(early.scannedEarly == ["offers"])
        #expect(late.scannedEarly == [])
        #expect(early.problems == nil)
        #expect(late.problems == nil)
        #expect(early.contentDigests == late.contentDigests)
        #expect(early.contentDigests["offers"]?.hasPrefix("20000:") == true)
        #expect(try scan.wait().get() == (try scan.wait().get()), "asked again, it answers again")
    }

    @Test func theWriterRefusesToChangeOffersOnceTheLoadIsCommitted() throws {
        let temporary = TemporaryDirectory()
        let writer = try load("\(temporary.path)/staging.sqlite")
        let row = OfferRow(aptcode: "Z", priceCents: 1, priceSince: Self.since, quantity: 1)
        let refused = #expect(throws: SQLiteError.self) { try writer.writeOffers(pharmacyID: "P999", [row]) }
        #expect(refused?.primary == .notAuthorized, "\(String(describing: refused))")
        #expect(throws: SQLiteError.self) { try writer.deleteOffers(pharmacyID: "P001") }
        #expect(throws: SQLiteError.self) { try writer.updateTierPrices([(pharmacyID: "P001", row: OfferRow(aptcode: "A00001", priceCents: 2, priceSince: Self.since, quantity: 1))]) }
        #expect(writer.offersDigest.text.hasPrefix("20000:"), "nothing refused is counted")
        try writer.writeMeta(["written": "after the load"]) // other tables stay writable
        try writer.finish()
        #expect(try writer.database.scalarInt("SELECT count(*) FROM offers") == 20_000)
        #expect(try writer.database.strings("SELECT value FROM meta WHERE key = 'written'") == ["after the load"])
        try writer.close()
    }

    /// The scan certifies the table as of the load; the finished file's
    /// index is still compared with it, so a change of an indexed column after the scan shows.
    @Test func aTableChangedAfterItsScanFailsTheCheck() throws {
        let temporary = TemporaryDirectory()
        let path = "\(temporary.path)/staging.sqlite"
        let (scan, offers) = try scanWhileFinishing(path)
        let tamper = try SQLiteDatabase(path: path)
        try tamper.execute("UPDATE offers SET price_cents = 1 WHERE pharmacy_id = 'P003' AND aptcode = 'A00010'")
        try tamper.close()
        let found = try #require(try PublishCheck.check(path: path, offers: offers, scanned: [scan]).problems)
        #expect(found.hasPrefix("index offers_by_item holds 20000:"), "\(found)")
    }

    /// A scan made for another schema (here: one without the index) is not
    /// the query the check runs on this file: the table is scanned again.
    @Test func aScanThatDoesNotFitTheFileIsScannedAgain() throws {
        let temporary = TemporaryDirectory()
        let path = "\(temporary.path)/staging.sqlite"
        let (scan, offers) = try scanWhileFinishing(path, writerDigest: false)
        let outcome = try PublishCheck.check(path: path, offers: offers, scanned: [scan])
        #expect(outcome.scannedEarly == [])
        #expect(outcome.problems == nil)
        let database = try SQLiteDatabase(path: path, readOnly: true)
        #expect(try PublishCheck.tableScanSQL(of: "offers", in: database, writerDigest: true)
                == PublishCheck.tableScanSQL(of: "offers", schema: SnapshotSchema(adding: []), writerDigest: true))
        try database.close()
    }
}
