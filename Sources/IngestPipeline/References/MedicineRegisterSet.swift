import IngestAdapters
import IngestCore
import IngestSnapshot

/// The medicines agency's register (FEEDS.md §11), the one in force by the
/// date in its file name: the items' leaflet URL, and their ATC code and
/// active substance where the stock feed has none.
struct MedicineRegisterSet: ReferenceSet {
    static let adapter = MedicineRegisterAdapter()
    static let selection = ReferenceSelection.latestInForce(metaKey: "medicine_register_valid_from")
    static let tables = [SnapshotTable(name: "medicine_register", create: """
        CREATE TABLE medicine_register(
            package_code TEXT PRIMARY KEY, name TEXT, form TEXT, strength TEXT, pack_size TEXT, atc TEXT,
            active_substance TEXT, leaflet_url TEXT, spc_url TEXT, prescription TEXT
        ) WITHOUT ROWID
        """, indexes: [
            // `?q=eq` finds a package's equivalents by ATC code as the register writes it, trimmed and in any case (READ_API.md).
            "CREATE INDEX medicine_register_by_atc ON medicine_register(lower(trim(atc)))",
        ], about: TableAbout("Medicine register", "The national medicine register in force on the run's date (FEEDS.md §11).", columns: [
            ("package_code", "Package code"), ("name", "Name"), ("form", "Pharmaceutical form"), ("strength", "Strength"),
            ("pack_size", "Pack size"), ("atc", "ATC code"), ("active_substance", "Active substance"),
            ("leaflet_url", "Package leaflet"), ("spc_url", "Summary of product characteristics"),
            ("prescription", "Rx (prescription only) or OTC"),
        ], label: "name", sort: "package_code"))]

    /// Its date is in its name (`medicine_register_2011-05-01.csv`).
    static func validFrom(_ file: FeedFile, header: NoHeader?) -> String? { MedicineRegisterAdapter.validFrom(fileName: file.name) }

    private(set) var packages: [String: MedicinePackage] = [:]

    var isEmpty: Bool { packages.isEmpty }

    mutating func add(_ records: [MedicinePackage], from file: FeedFile, loaded: ReferenceData, report: inout RunReport) throws {
        for package in records { packages[package.packageCode] = package }
    }

    /// The register kept in yesterday's snapshot (none before the table existed).
    mutating func keep(from previous: PreviousSnapshot) throws -> Bool {
        let exists = try previous.database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'medicine_register'") ?? 0
        guard exists > 0 else { return false }
        let statement = try previous.database.prepare("""
            SELECT package_code, name, form, strength, pack_size, atc, active_substance, leaflet_url, spc_url, prescription
            FROM medicine_register ORDER BY package_code
            """)
        while try statement.step() {
            let package = MedicinePackage(
                packageCode: statement.string(0) ?? "", name: statement.string(1) ?? "", form: statement.string(2),
                strength: statement.string(3), packSize: statement.string(4), atc: statement.string(5),
                activeSubstance: statement.string(6), leafletURL: statement.string(7), spcURL: statement.string(8),
                prescription: statement.string(9), line: 0)
            packages[package.packageCode] = package
        }
        return !packages.isEmpty
    }

    func write(to writer: SnapshotWriter) throws {
        let insert = try writer.database.cachedStatement("""
            INSERT INTO medicine_register(package_code, name, form, strength, pack_size, atc, active_substance,
                                          leaflet_url, spc_url, prescription)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for row in packages.values.sorted(by: { $0.packageCode < $1.packageCode }) {
            try insert.run(.text(row.packageCode), .text(row.name), .text(row.form), .text(row.strength), .text(row.packSize),
                           .text(row.atc), .text(row.activeSubstance), .text(row.leafletURL), .text(row.spcURL), .text(row.prescription))
        }
    }
}
