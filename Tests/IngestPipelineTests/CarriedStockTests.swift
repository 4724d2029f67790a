import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// Issue 47, item 2: carrying a pharmacy over as a stage of its own. It
/// reads the pharmacy from `current`, prices it, hands its offers to the
/// writer and answers with the row and the report's entry (or the drop and
/// its warning); it edits no report.
@Suite struct CarriedStockTests {
    /// The sample feeds published once, and `current` opened as the night after reads it.
    static func current(_ temporary: TemporaryDirectory) throws -> PreviousSnapshot {
        let options = ImportOptions(feedsDirectory: RepositoryFiles.feedsDirectory, snapshotsDirectory: "\(temporary.path)/snapshots",
                                    mappingsDirectory: RepositoryFiles.mappingsDirectory, parseThreads: 2,
                                    asOf: Date(timeIntervalSince1970: 1_716_174_000))
        _ = try #require(try ImportRun(options: options).run().publishedVersion)
        return try #require(try PreviousSnapshot.open(SnapshotDirectory(path: "\(temporary.path)/snapshots")))
    }

    @Test func aKeptPharmacyIsWrittenStaleWithItsEntryAndADroppedOneOnlyReported() throws {
        let temporary = TemporaryDirectory()
        let current = try Self.current(temporary)
        let (id, old) = try #require(current.pharmacies.sorted { $0.key < $1.key }.first { $0.value.itemCount > 0 })
        let pricer = TierPricer(rules: nil, catalog: ReimbursementCatalog())
        // The next morning: kept, stale, every offer handed to the writer once.
        let nextDay = try #require(ExportTimestamp.parseISO8601("2024-05-21T06:00:00+03:00"))
        let stock = CarriedStock(previous: current, pricer: pricer, registry: [:], runDate: nextDay.localDate, batchRows: 2)
        var items = ItemCatalog()
        var written: [OfferRow] = []
        let kept = try #require(try stock.keep(id, verdict: CarryOverPlan(previousIDs: [id], asOf: nextDay, maxStaleDays: 7000),
                                               items: &items, write: { written += $0 }))
        #expect(kept.row?.stale == true && kept.row?.itemCount == old.itemCount && kept.warning == nil)
        #expect(kept.entry.offers == old.itemCount && !kept.entry.dropped && kept.entry.fromVersion == current.version)
        #expect(written.count == old.itemCount && Set(written.map(\.aptcode)).count == old.itemCount)
        // Its items came from current, since no feed brought them tonight.
        #expect(try written.allSatisfy { try items.contains($0.aptcode) })
        // Too old to keep: nothing written, the drop and its warning reported.
        var none: [OfferRow] = []
        let stale = try #require(try stock.keep(id, verdict: CarryOverPlan(previousIDs: [id], asOf: nextDay, maxStaleDays: 0),
                                                items: &items, write: { none += $0 }))
        #expect(stale.row == nil && stale.entry.dropped && stale.warning?.code == .staleDropped && none.isEmpty)
        // A pharmacy current does not hold: nothing to say.
        #expect(try stock.keep("nope", verdict: CarryOverPlan(previousIDs: [], asOf: nextDay, maxStaleDays: 7), items: &items, write: { _ in }) == nil)
    }
}
