import IngestCore
import IngestSnapshot
import Testing
@testable import IngestPipeline

@Suite struct CarryOverPlanTests {
    private let asOf = ExportTimestamp.parseISO8601("2024-05-20T00:00:00+03:00")!

    private func row(_ id: String, exported: String, loaded: String?) -> PharmacyRow {
        PharmacyRow(id: id, name: id, chainID: nil, region: nil, address: nil, phone: nil, openHours: nil, latitude: nil, longitude: nil,
                    lastRefresh: exported, itemCount: 1, stale: false, loadedAt: loaded)
    }

    /// Pharmacies tonight did not load come due, in byte order, just before the first loaded one after them.
    @Test func previousPharmaciesComeDueInByteOrder() {
        var plan = CarryOverPlan(previousIDs: ["b", "B", "10", "2", "a"], asOf: asOf, maxStaleDays: 7)
        #expect(plan.due(before: "2") == ["10"], "bytes: '10' < '2'")
        plan.handled("2")
        #expect(plan.due(before: "a") == ["B"])
        plan.handled("a")
        #expect(plan.due(before: nil) == ["b"])
        #expect(plan.due(before: nil) == [])
    }

    /// Kept for maxStaleDays after the run that loaded it, whatever the export's own date; never from the future.
    @Test func whatMayBeKept() {
        let plan = CarryOverPlan(previousIDs: [], asOf: asOf, maxStaleDays: 7)
        #expect(plan.verdict(for: row("1", exported: "2010-01-01T12:00:00+02:00", loaded: "2024-05-14T00:00:00+03:00"), in: "v") == .keep)
        #expect(plan.verdict(for: row("1", exported: "2024-05-12T12:00:00+03:00", loaded: "2024-05-13T00:00:00+03:00"), in: "v") == .keep, "exactly 7 days")
        #expect(plan.verdict(for: row("2", exported: "2024-05-10T12:00:00+03:00", loaded: "2024-05-11T00:00:00+03:00"), in: "v")
                    == .stale(message: "pharmacy 2 sent no valid feed since the run of 2024-05-11T00:00:00+03:00, over 7 days; its offers are dropped"))
        // Snapshots from before loaded_at: the export date stands in.
        #expect(plan.verdict(for: row("3", exported: "2024-05-01T12:00:00+03:00", loaded: nil), in: "v") != .keep)
        #expect(plan.verdict(for: row("4", exported: "2024-05-21T12:00:00+03:00", loaded: "2024-05-19T00:00:00+03:00"), in: "v")
                    == .future(message: "pharmacy 4's offers in v are dated 2024-05-21T12:00:00+03:00, after the run's time; they are dropped, never carried"))
    }
}
