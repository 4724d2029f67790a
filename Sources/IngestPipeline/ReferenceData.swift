import Foundation
import IngestAdapters
import IngestCore
import IngestSnapshot

/// Everything read from reference files, validated, ready to join stock
/// data and to be written. Each file's counts, rejects and warnings go to
/// the run's report as it is loaded.
struct ReferenceData {
    var registry: [String: PharmacyRecord] = [:]
    /// The reimbursement list in force, by package code.
    var reimbursement = ReimbursementCatalog()
    var legend: [(code: String, text: String)] = []
    var diagnoses: [DiagnosisRow] = []
    var atc: [ATCRow] = []
    var icd10: [(code: String, name: String)] = []
    var gs1: [String: GS1TradeItem] = [:]
    /// `validFrom` of the list in force, kept in `meta`.
    var reimbursementValidFrom: String?
    /// The medicine register in force, by package code.
    var register: [String: MedicinePackage] = [:]
    /// The date of the register in force (from its file name), kept in `meta`.
    var registerValidFrom: String?

    /// Loads every reference file of the classification. `runDate` (ISO)
    /// picks the reimbursement list in force.
    static func load(_ files: FeedClassification, catalog: AdapterCatalog, runDate: String, previous: PreviousSnapshot?,
                     report: inout RunReport) throws -> ReferenceData {
        var data = ReferenceData()
        for file in files.registries {
            let output = catalog.registry.parse(file)
            for record in try record(output, file, catalog.registry, .pharmacyRegistry, &report) where data.registry[record.id] == nil {
                data.registry[record.id] = record
            }
        }
        var icdCodes = Set<String>()
        for file in files.icd10 {
            for code in try record(catalog.icd10.parse(file), file, catalog.icd10, .icd10, &report) where icdCodes.insert(code.code).inserted {
                data.icd10.append((code.code, code.name))
            }
        }
        var atcCodes = Set<String>()
        for file in files.atc {
            for group in try record(catalog.atc.parse(file), file, catalog.atc, .atc, &report) where atcCodes.insert(group.code).inserted {
                data.atc.append(ATCRow(code: group.code, name: group.name, level: group.level, parent: group.parent))
            }
        }
        for file in files.gs1 {
            for item in try record(catalog.gs1.parse(file), file, catalog.gs1, .gs1, &report) where data.gs1[item.gtin] == nil {
                data.gs1[item.gtin] = item
            }
        }
        try data.loadReimbursement(files.reimbursementLists, adapter: catalog.reimbursementList, runDate: runDate,
                               knownICD10: files.icd10.isEmpty ? nil : icdCodes, report: &report)
        try data.loadRegister(files.medicineRegisters, adapter: catalog.medicineRegister, runDate: runDate, report: &report)
        if let previous { try data.carryOver(from: previous, report: &report) }
        return data
    }

    /// A reference set missing or rejected tonight is kept from the previous
    /// snapshot, and the report says so.
    private mutating func carryOver(from previous: PreviousSnapshot, report: inout RunReport) throws {
        func note(_ key: String) {
            report.carriedOver.append(CarryOver(kind: .reference, key: key, fromVersion: previous.version, lastRefresh: nil, dropped: false, offers: nil))
        }
        if reimbursement.isEmpty, try previous.count("reimbursements") > 0 {
            let kept = try previous.reimbursements()
            reimbursement = kept.catalog
            diagnoses = kept.diagnoses
            legend = kept.legend
            reimbursementValidFrom = previous.meta["reimbursement_valid_from"]
            note(FeedKind.reimbursementList.rawValue)
        }
        if atc.isEmpty, try previous.count("atc") > 0 {
            atc = try previous.atc()
            note(FeedKind.atc.rawValue)
        }
        if icd10.isEmpty, try previous.count("icd10") > 0 {
            icd10 = try previous.icd10()
            note(FeedKind.icd10.rawValue)
        }
        if gs1.isEmpty, try previous.count("gs1_items") > 0 {
            gs1 = try previous.gs1()
            note(FeedKind.gs1.rawValue)
        }
        if register.isEmpty {
            let kept = try previous.medicineRegister()
            if !kept.isEmpty {
                register = Dictionary(uniqueKeysWithValues: kept.map { ($0.packageCode, $0) })
                registerValidFrom = previous.meta["medicine_register_valid_from"]
                note(FeedKind.medicineRegister.rawValue)
            }
        }
        if registry.isEmpty, !previous.registry.isEmpty {
            registry = previous.registry
            note(FeedKind.pharmacyRegistry.rawValue)
        }
    }

    /// Adds a reference file's line to the report and returns its accepted records.
    private static func record<Record>(_ output: FeedOutput<Record>, _ file: FeedFile, _ adapter: some FeedAdapter, _ kind: FeedKind,
                                       _ report: inout RunReport) throws -> [Record] {
        let output = output.failure == nil ? output : output.rejectingAll()
        var result = FeedResult(file: file.name, size: file.size, sha256: PharmacyFeedParser.digest(file.path),
                                kind: kind.rawValue, adapter: adapter.name, outcome: output.failure == nil ? .loaded : .rejected)
        if let failure = output.failure {
            result.reject(failure)
        }
        result.count(output)
        report.feeds.append(result)
        try report.rejects += output.rejects
        try report.warnings += output.warnings
        return output.records
    }

    /// Of several dated files of one kind (reimbursement lists, registers),
    /// the valid one with the latest date not after the run's is in force and
    /// handed to `take`; the others are superseded. Returns the date in force.
    private static func loadDated<Record>(
        _ parsed: [(file: FeedFile, output: FeedOutput<Record>, validFrom: String?)], kind: FeedKind, adapter: String,
        runDate: String, report: inout RunReport, take: (FeedOutput<Record>, FeedFile) throws -> Void
    ) throws -> String? {
        let inForce = parsed.indices
            .filter { parsed[$0].output.failure == nil && (parsed[$0].validFrom ?? "9999") <= runDate }
            .max { (parsed[$0].validFrom!, parsed[$0].file.name) < (parsed[$1].validFrom!, parsed[$1].file.name) }
        for (index, list) in parsed.enumerated() {
            var result = FeedResult(file: list.file.name, size: list.file.size, sha256: PharmacyFeedParser.digest(list.file.path),
                                    kind: kind.rawValue, adapter: adapter, outcome: .loaded)
            result.exportedAt = list.validFrom
            if let failure = list.output.failure {
                let whole = list.output.rejectingAll()
                result.reject(failure)
                result.count(whole)
                try report.rejects += whole.rejects
            } else if index != inForce {
                result.outcome = .superseded
                if let date = list.validFrom, date > runDate {
                    result.message = "valid from \(date), after the run's date \(runDate)"
                } else if list.validFrom == nil {
                    result.message = "it carries no date it is valid from"
                } else {
                    result.message = "a later one is in force: \(inForce.map { parsed[$0].file.name } ?? "none")"
                }
            } else {
                result.count(list.output)
                try report.rejects += list.output.rejects
                try report.warnings += list.output.warnings
                try take(list.output, list.file)
            }
            report.feeds.append(result)
        }
        return inForce.flatMap { parsed[$0].validFrom }
    }

    private mutating func loadReimbursement(_ files: [FeedFile], adapter: ReimbursementListAdapter, runDate: String,
                                            knownICD10: Set<String>?, report: inout RunReport) throws {
        let parsed = files.map { file in
            let (output, validFrom) = adapter.parse(file)
            return (file, output, validFrom)
        }
        var taken: (FeedOutput<ReimbursementEntry>, String)?
        reimbursementValidFrom = try Self.loadDated(parsed, kind: .reimbursementList, adapter: adapter.name, runDate: runDate, report: &report) {
            taken = ($0, $1.name)
        }
        if let (output, file) = taken { try take(output, file: file, knownICD10: knownICD10, report: &report) }
    }

    private mutating func loadRegister(_ files: [FeedFile], adapter: MedicineRegisterAdapter, runDate: String, report: inout RunReport) throws {
        let parsed = files.map { ($0, adapter.parse($0), MedicineRegisterAdapter.validFrom(fileName: $0.name)) }
        registerValidFrom = try Self.loadDated(parsed, kind: .medicineRegister, adapter: adapter.name, runDate: runDate, report: &report) {
            output, _ in
            for entry in output.records { register[entry.packageCode] = entry }
        }
    }

    private mutating func take(_ output: FeedOutput<ReimbursementEntry>, file: String, knownICD10: Set<String>?, report: inout RunReport) throws {
        for entry in output.records {
            switch entry {
            case .package(let code, let limit, let tiers, _):
                reimbursement.add(code: code, limitCents: limit, tiers: tiers)
            case .legend(let code, let text, _):
                legend.append((code, text))
            case .diagnosis(let code, let rate, let range, let line):
                diagnoses.append(DiagnosisRow(packageCode: code, rate: rate, icdFrom: range.from, icdTo: range.to, marker: range.marker))
                if let knownICD10 {
                    for end in Set([range.from, range.to]) where !knownICD10.contains(end) {
                        try report.warnings.append(Warning(file: file, line: line, key: "\(code)/\(rate)", code: .unknownICD10,
                                                       message: "diagnosis code \(end) is not in the ICD-10 list; kept"))
                    }
                }
            }
        }
    }

    /// The register supplies the leaflet URL, and ATC code and substance
    /// where the stock feeds gave none; where both name an ATC code and they
    /// differ, the register wins and a warning names both. GS1 supplies image
    /// URL and producer (brand) where the stock feeds gave none.
    func enrich(_ item: inout ItemRow, warnings: inout [Warning]) {
        if let code = item.packageCode, let entry = register[code] {
            if let leaflet = entry.leafletURL { item.infoURL = leaflet }
            if let atc = entry.atc {
                if let own = item.atc, own != atc {
                    warnings.append(Warning(file: "", line: 0, key: item.aptcode, code: .atcConflict,
                                            message: "item \(item.aptcode) (package \(code)): the stock feed says ATC \(own), the register \(atc); the register's is kept"))
                }
                item.atc = atc
            }
            if item.activeSubstance == nil { item.activeSubstance = entry.activeSubstance }
        }
        guard let gtin = item.gtin, let sheet = gs1[gtin] else { return }
        if item.imageURL == nil { item.imageURL = sheet.imageURL }
        if item.producer == nil { item.producer = sheet.brand }
    }

    var registerRows: [MedicinePackage] { register.values.sorted { $0.packageCode < $1.packageCode } }

    var gs1Rows: [GS1ItemRow] {
        gs1.values.sorted { $0.gtin < $1.gtin }.map { item in
            GS1ItemRow(gtin: item.gtin, unitDescriptor: item.unitDescriptor, brand: item.brand, description: item.description,
                       netContent: item.netContent, imageURL: item.imageURL,
                       checks: (item.checksPassed, item.checksWarning, item.checksFailed, item.checksUnable),
                       children: item.children.map { ($0.gtin, $0.quantity) })
        }
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

    var rows: [ReimbursementRow] {
        packages.keys.sorted().flatMap { code in
            let package = packages[code]!
            return package.tiers.sorted { $0.rate < $1.rate }.map {
                ReimbursementRow(packageCode: code, rate: $0.rate, limitPriceCents: package.limitCents, diagnoses: $0.diagnoses, info: $0.info)
            }
        }
    }
}

extension WarningCode {
    /// The stock feed and the medicine register name different ATC codes for an item.
    public static let atcConflict = WarningCode(rawValue: "atc_conflict")
}
