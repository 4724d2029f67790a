import IngestAdapters
import IngestCore
import IngestSnapshot

/// The ICD-10 code list (FEEDS.md §9): its own table, and the codes the
/// reimbursement list's diagnoses are checked against.
struct ICD10Set: ReferenceSet {
    static let adapter = ICD10Adapter()
    static let tables = [SnapshotTable(name: "icd10", create: "CREATE TABLE icd10(code TEXT PRIMARY KEY, name TEXT) WITHOUT ROWID",
                                       about: TableAbout("ICD-10", "The WHO ICD-10 codes.", columns: [("code", "Code"), ("name", "Title")],
                                                         label: "name", sort: "code"))]

    private(set) var codes: [(code: String, name: String)] = []
    /// Codes of tonight's files; nil when none came (yesterday's kept codes
    /// do not flag tonight's list).
    private(set) var known: Set<String>?

    var isEmpty: Bool { codes.isEmpty }

    mutating func add(_ records: [ICD10Code], from file: FeedFile, loaded: ReferenceData, report: inout RunReport) throws {
        var known = self.known ?? []
        for record in records where known.insert(record.code).inserted { codes.append((record.code, record.name)) }
        self.known = known
    }

    mutating func keep(from previous: PreviousSnapshot) throws -> Bool {
        let statement = try previous.database.prepare("SELECT code, name FROM icd10 ORDER BY code")
        while try statement.step() { codes.append((statement.string(0) ?? "", statement.string(1) ?? "")) }
        return !codes.isEmpty
    }

    func write(to writer: SnapshotWriter) throws {
        let insert = try writer.database.cachedStatement("INSERT INTO icd10(code, name) VALUES (?, ?)")
        for entry in codes { try insert.run(.text(entry.code), .text(entry.name)) }
    }
}
