import IngestAdapters
import IngestCore
import IngestSnapshot

/// The pharmacy registry (FEEDS.md §5): names, addresses and coordinates
/// for the pharmacies the stock feeds bring. It has no table of its own: the
/// stock load writes `pharmacies`, taking each row's details from here.
struct PharmacyRegistrySet: ReferenceSet {
    static let adapter = PharmacyRegistryAdapter()

    private(set) var records: [String: PharmacyRecord] = [:]

    var isEmpty: Bool { records.isEmpty }

    mutating func add(_ records: [PharmacyRecord], from file: FeedFile, loaded: ReferenceData, report: inout RunReport) throws {
        for record in records where self.records[record.id] == nil { self.records[record.id] = record }
    }

    /// Yesterday's pharmacy rows that came from a registry (a pharmacy known
    /// only from its feed has no coordinates and region `UNKNOWN`).
    mutating func keep(from previous: PreviousSnapshot) throws -> Bool {
        records = previous.pharmacies.compactMapValues { row in
            guard let latitude = row.latitude, let longitude = row.longitude, row.region != "UNKNOWN" else { return nil }
            return PharmacyRecord(id: row.id, name: row.name, chainID: row.chainID, region: row.region, address: row.address,
                                  phone: row.phone, openHours: row.openHours, latitude: latitude, longitude: longitude)
        }
        return !records.isEmpty
    }

    func write(to writer: SnapshotWriter) throws {}
}
