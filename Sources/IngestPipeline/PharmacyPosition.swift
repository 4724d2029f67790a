import IngestSnapshot

/// Where a pharmacy of the snapshot stands and whether its offers are
/// carried over (stale): the HTML report's map. Read from the built file,
/// so that the map shows what readers will see, carried-over pharmacies included.
public struct PharmacyPosition: Sendable, Equatable {
    public var id: String
    public var name: String?
    public var latitude: Double
    public var longitude: Double
    public var stale: Bool

    public init(id: String, name: String?, latitude: Double, longitude: Double, stale: Bool) {
        self.id = id
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.stale = stale
    }

    /// Every pharmacy with both coordinates; those without any have no place on a map (the report counts them).
    static func read(from database: SQLiteDatabase) throws -> [PharmacyPosition] {
        let statement = try database.prepare("""
            SELECT id, name, latitude, longitude, stale FROM pharmacies
            WHERE latitude IS NOT NULL AND longitude IS NOT NULL ORDER BY id
            """)
        var positions: [PharmacyPosition] = []
        while try statement.step() {
            positions.append(PharmacyPosition(id: statement.string(0) ?? "", name: statement.string(1), latitude: statement.double(2),
                                              longitude: statement.double(3), stale: statement.int64(4) != 0))
        }
        return positions
    }
}
