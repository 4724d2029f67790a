import IngestAdapters
import IngestCore
import IngestSnapshot

/// The health insurance fund's list in force (FEEDS.md §6): limit prices and
/// tiers by package code, the diagnoses that allow each tier, and the legend
/// of their abbreviations. Tier prices are computed from it (`TierPricer`).
struct ReimbursementSet: ReferenceSet {
    static let adapter = ReimbursementListAdapter()
    static let selection = ReferenceSelection.latestInForce(metaKey: "reimbursement_valid_from")
    static let tables = [
        SnapshotTable(name: "reimbursements", create: """
            CREATE TABLE reimbursements(
                package_code TEXT NOT NULL, rate INTEGER NOT NULL, limit_price_cents INTEGER,
                diagnoses TEXT, info TEXT, PRIMARY KEY (package_code, rate)
            ) WITHOUT ROWID
            """, about: TableAbout("Reimbursements", "The health insurance fund's list: one row per listed tier (50, 75, 100 %); the 90 % tier uses the 75 % row.", columns: [
                ("package_code", "Package code"), ("rate", "Reimbursement rate, percent"), ("limit_price_cents", "Limit price, euro cents"),
                ("diagnoses", "Diagnoses that allow the tier, as published"), ("info", "Conditions, as published"),
            ], sort: "package_code")),
        SnapshotTable(name: "reimbursement_diagnoses", create: """
            CREATE TABLE reimbursement_diagnoses(
                package_code TEXT NOT NULL, rate INTEGER NOT NULL, position INTEGER NOT NULL,
                icd_from TEXT NOT NULL, icd_to TEXT NOT NULL, marker TEXT,
                PRIMARY KEY (package_code, rate, position),
                FOREIGN KEY (package_code, rate) REFERENCES reimbursements(package_code, rate)
            ) WITHOUT ROWID
            """, about: TableAbout("Reimbursement diagnoses", "The diagnoses of each tier, parsed into ICD-10 ranges.", columns: [
                ("package_code", "Package code"), ("rate", "Reimbursement rate, percent"), ("position", "Place in the tier's list"),
                ("icd_from", "First ICD-10 code of the range"), ("icd_to", "Last ICD-10 code of the range (equal to the first for one code)"),
                ("marker", "Footnote marker tying the range to a line of the tier's info"),
            ])),
        SnapshotTable(name: "diagnosis_legend", create: "CREATE TABLE diagnosis_legend(code TEXT PRIMARY KEY, text TEXT) WITHOUT ROWID",
                      about: TableAbout("Legend", "The abbreviations used in the reimbursement conditions.",
                                        columns: [("code", "Abbreviation"), ("text", "What it stands for")], label: "text")),
    ]

    /// Its date is the list's own `validFrom` attribute, in the adapter's header.
    static func validFrom(_ file: FeedFile, header: ReimbursementListAdapter.Header?) -> String? { header?.validFrom }

    /// Limit prices in another currency than the snapshot's would become its
    /// minor units unconverted (`"priceLimit":"£48.21"` from euro cents):
    /// such a list is rejected whole, never converted (SNAPSHOT.md "Money in other currencies").
    static func problem(_ file: FeedFile, header: ReimbursementListAdapter.Header?, snapshotCurrency currency: String) -> FeedFailure? {
        guard let listed = header?.currency, listed != currency else { return nil }
        return FeedFailure(reason: .wrongCurrency,
                           message: "the list's amounts are in \(listed) and the snapshot's in \(currency): a reimbursement list is never converted; tier prices stay empty unless a list in \(currency) is in force")
    }

    struct Diagnosis {
        var packageCode: String
        var rate: Int
        var icdFrom: String
        var icdTo: String
        var marker: String?
    }

    private(set) var catalog = ReimbursementCatalog()
    private(set) var diagnoses: [Diagnosis] = []
    private(set) var legend: [(code: String, text: String)] = []

    var isEmpty: Bool { catalog.isEmpty }

    /// A diagnosis code the night's ICD-10 list lacks is kept, with a warning.
    mutating func add(_ records: [ReimbursementEntry], from file: FeedFile, loaded: ReferenceData, report: inout RunReport) throws {
        let known = loaded[ICD10Set.self].known
        for entry in records {
            switch entry {
            case .package(let code, let limit, let tiers, _):
                catalog.add(code: code, limitCents: limit, tiers: tiers)
            case .legend(let code, let text, _):
                legend.append((code, text))
            case .diagnosis(let code, let rate, let range, let line):
                diagnoses.append(Diagnosis(packageCode: code, rate: rate, icdFrom: range.from, icdTo: range.to, marker: range.marker))
                guard let known else { continue }
                for end in Set([range.from, range.to]) where !known.contains(end) {
                    try report.warnings.append(Warning(file: file.name, line: line, key: "\(code)/\(rate)", code: .unknownICD10,
                                                       message: "diagnosis code \(end) is not in the ICD-10 list; kept"))
                }
            }
        }
    }

    mutating func keep(from previous: PreviousSnapshot) throws -> Bool {
        let database = previous.database
        var tiers: [String: (limit: Int64?, tiers: [ReimbursementTier])] = [:]
        let statement = try database.prepare("SELECT package_code, rate, limit_price_cents, diagnoses, info FROM reimbursements ORDER BY package_code, rate")
        while try statement.step() {
            let code = statement.string(0) ?? ""
            var entry = tiers[code] ?? (statement.isNull(2) ? nil : statement.int64(2), [])
            entry.tiers.append(ReimbursementTier(rate: Int(statement.int64(1)), diagnoses: statement.string(3), info: statement.string(4)))
            tiers[code] = entry
        }
        for (code, entry) in tiers { catalog.add(code: code, limitCents: entry.limit, tiers: entry.tiers) }
        // A snapshot of schema 1 has no position: its rows are in the order they were listed.
        let order = try database.hasColumn("position", in: "reimbursement_diagnoses") ? "package_code, rate, position" : "rowid"
        let diagnosis = try database.prepare("SELECT package_code, rate, icd_from, icd_to, marker FROM reimbursement_diagnoses ORDER BY \(order)")
        while try diagnosis.step() {
            diagnoses.append(Diagnosis(packageCode: diagnosis.string(0) ?? "", rate: Int(diagnosis.int64(1)),
                                       icdFrom: diagnosis.string(2) ?? "", icdTo: diagnosis.string(3) ?? "", marker: diagnosis.string(4)))
        }
        let abbreviations = try database.prepare("SELECT code, text FROM diagnosis_legend ORDER BY code")
        while try abbreviations.step() { legend.append((abbreviations.string(0) ?? "", abbreviations.string(1) ?? "")) }
        return !catalog.isEmpty
    }

    func write(to writer: SnapshotWriter) throws {
        let database = writer.database
        let tier = try database.cachedStatement(
            "INSERT INTO reimbursements(package_code, rate, limit_price_cents, diagnoses, info) VALUES (?, ?, ?, ?, ?)")
        for (code, package) in catalog.packages.sorted(by: { $0.key < $1.key }) {
            for listed in package.tiers.sorted(by: { $0.rate < $1.rate }) {
                try tier.run(.text(code), .int(Int64(listed.rate)), .int(package.limitCents), .text(listed.diagnoses), .text(listed.info))
            }
        }
        let diagnosis = try database.cachedStatement(
            "INSERT INTO reimbursement_diagnoses(package_code, rate, position, icd_from, icd_to, marker) VALUES (?, ?, ?, ?, ?, ?)")
        // The position within its tier keeps the list's order and makes the key, stable from night to night (changesets stay small).
        var positions: [String: Int64] = [:]
        for row in diagnoses {
            let position = positions["\(row.packageCode)/\(row.rate)", default: 0] + 1
            positions["\(row.packageCode)/\(row.rate)"] = position
            try diagnosis.run(.text(row.packageCode), .int(Int64(row.rate)), .int(position), .text(row.icdFrom), .text(row.icdTo), .text(row.marker))
        }
        let abbreviation = try database.cachedStatement("INSERT INTO diagnosis_legend(code, text) VALUES (?, ?)")
        for entry in legend { try abbreviation.run(.text(entry.code), .text(entry.text)) }
    }
}

/// The reimbursement list in force, by package code.
struct ReimbursementCatalog {
    struct Package {
        var limitCents: Int64?
        var tiers: [ReimbursementTier]
        var rates: Set<Int>
    }

    private(set) var packages: [String: Package] = [:]

    var isEmpty: Bool { packages.isEmpty }

    mutating func add(code: String, limitCents: Int64?, tiers: [ReimbursementTier]) {
        packages[code] = Package(limitCents: limitCents, tiers: tiers, rates: Set(tiers.map(\.rate)))
    }
}
