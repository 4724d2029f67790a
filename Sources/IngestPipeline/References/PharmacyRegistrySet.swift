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

    /// Opening hours that read as neither OSM's syntax nor the Estonian
    /// short form stay as the registry wrote them, with a warning naming the
    /// line (READ_API.md, Version 3): the pharmacy's `on` is then unknown.
    mutating func add(_ records: [PharmacyRecord], from file: FeedFile, loaded: ReferenceData, report: inout RunReport) throws {
        for record in records where self.records[record.id] == nil {
            self.records[record.id] = record
            if case .failure(let unreadable) = OpeningHours.parse(record.openHours ?? "") {
                try report.warnings.append(Warning(file: file.name, line: record.line, key: record.id, code: .freeTextHours,
                                                   message: "open_hours: \(unreadable.reason); kept as free text, opening times unknown"))
            }
        }
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
