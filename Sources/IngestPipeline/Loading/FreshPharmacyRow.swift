import IngestAdapters
import IngestCore
import IngestSnapshot

/// A pharmacy loaded fresh tonight as the snapshot's row: the registry's
/// details where it is registered; otherwise the feed's own name, region
/// UNKNOWN, and a warning, so a new pharmacy is served before the registry
/// catches up rather than lost.
enum FreshPharmacyRow {
    static func row(_ header: StockFeedHeader, offers: Int, registry: [String: PharmacyRecord],
                    loadedAt: String) -> (row: PharmacyRow, warning: Warning?) {
        let refresh = header.exportedAt.iso8601
        if let known = registry[header.pharmacyID] {
            return (PharmacyRow(id: known.id, name: known.name, chainID: known.chainID, region: known.region,
                                address: known.address, phone: known.phone, openHours: known.openHours,
                                latitude: known.latitude, longitude: known.longitude,
                                lastRefresh: refresh, itemCount: offers, stale: false, loadedAt: loadedAt), nil)
        }
        let warning = Warning(file: "", line: 0, key: header.pharmacyID, code: .unknownPharmacy,
                              message: "pharmacy \(header.pharmacyID) is not in the registry; loaded with its feed's name and region UNKNOWN")
        return (PharmacyRow(id: header.pharmacyID, name: header.pharmacyName ?? header.pharmacyID, chainID: header.chainID,
                            region: "UNKNOWN", address: nil, phone: nil, openHours: nil, latitude: nil, longitude: nil,
                            lastRefresh: refresh, itemCount: offers, stale: false, loadedAt: loadedAt), warning)
    }
}
