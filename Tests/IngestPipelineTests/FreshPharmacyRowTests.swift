import IngestCore
import IngestSnapshot
import Testing
@testable import IngestPipeline

/// Issue 47, item 2: a pharmacy loaded tonight as its row: the registry's
/// details, or the feed's own name in region UNKNOWN with a warning.
@Suite struct FreshPharmacyRowTests {
    @Test func theRegistryWinsAndAnUnknownPharmacyLoadsWithAWarning() throws {
        let exported = try #require(ExportTimestamp.parseISO8601("2025-11-20T23:05:00+02:00"))
        let registry = ["1000": PharmacyRecord(id: "1000", name: "Registered", chainID: "C", region: "Harju", address: "Tee 1", phone: nil,
                                               openHours: "E-R 9-18", latitude: 59.4, longitude: 24.7)]
        let known = FreshPharmacyRow.row(StockFeedHeader(pharmacyID: "1000", pharmacyName: "FEED NAME", exportedAt: exported, format: "RAX 3.2"),
                                         offers: 12, registry: registry, loadedAt: "2025-11-21T01:00:00+02:00")
        #expect(known.warning == nil && known.row.name == "Registered" && known.row.region == "Harju" && known.row.openHours == "E-R 9-18")
        #expect(known.row.itemCount == 12 && !known.row.stale && known.row.lastRefresh == exported.iso8601 && known.row.loadedAt == "2025-11-21T01:00:00+02:00")
        let unknown = FreshPharmacyRow.row(StockFeedHeader(pharmacyID: "2000", pharmacyName: "FEED NAME", exportedAt: exported, format: "RAX 3.2"),
                                           offers: 3, registry: registry, loadedAt: "2025-11-21T01:00:00+02:00")
        #expect(unknown.row.name == "FEED NAME" && unknown.row.region == "UNKNOWN" && unknown.row.latitude == nil && unknown.row.itemCount == 3)
        #expect(unknown.warning?.code == .unknownPharmacy && unknown.warning?.key == "2000")
        #expect(unknown.warning?.message == "pharmacy 2000 is not in the registry; loaded with its feed's name and region UNKNOWN")
    }
}
