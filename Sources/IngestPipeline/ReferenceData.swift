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

    /// Loads every reference file of the classification. `runDate` (ISO)
    /// picks the reimbursement list in force.
    static func load(_ files: FeedClassification, catalog: AdapterCatalog, runDate: String, previous: PreviousSnapshot?,
                     report: inout RunReport) throws -> ReferenceData {
        var data = ReferenceData()
        for file in files.registries {
            let output = catalog.registry.parse(file)
            for record in record(output, file, catalog.registry, .pharmacyRegistry, &report) where data.registry[record.id] == nil {
                data.registry[record.id] = record
            }
        }
        var icdCodes = Set<String>()
        for file in files.icd10 {
            for code in record(catalog.icd10.parse(file), file, catalog.icd10, .icd10, &report) where icdCodes.insert(code.code).inserted {
                data.icd10.append((code.code, code.name))
            }
        }
        var atcCodes = Set<String>()
        for file in files.atc {
            for group in record(catalog.atc.parse(file), file, catalog.atc, .atc, &report) where atcCodes.insert(group.code).inserted {
                data.atc.append(ATCRow(code: group.code, name: group.name, level: group.level, parent: group.parent))
            }
        }
        for file in files.gs1 {
            for item in record(catalog.gs1.parse(file), file, catalog.gs1, .gs1, &report) where data.gs1[item.gtin] == nil {
                data.gs1[item.gtin] = item
            }
        }
        data.loadReimbursement(files.reimbursementLists, adapter: catalog.reimbursementList, runDate: runDate,
                               knownICD10: files.icd10.isEmpty ? nil : icdCodes, report: &report)
        if let previous { try data.carryOver(from: previous, report: &report) }
        return data
    }

    /// A reference set missing or rejected tonight is kept from the previous
    /// snapshot, and the report says so.
    private mutating func carryOver(from previous: PreviousSnapshot, report: inout RunReport) throws {
        func note(_ key: String) {
            report.carriedOver.append(CarryOver(kind: .reference, key: key, fromVersion: previous.version, lastRefresh: nil, dropped: false, offers: nil))
        }
        if reimbursement.isEmpty, previous.count("reimbursements") > 0 {
            let kept = try previous.reimbursements()
            reimbursement = kept.catalog
            diagnoses = kept.diagnoses
            legend = kept.legend
            reimbursementValidFrom = previous.meta["reimbursement_valid_from"]
            note(FeedKind.reimbursementList.rawValue)
        }
        if atc.isEmpty, previous.count("atc") > 0 {
            atc = try previous.atc()
            note(FeedKind.atc.rawValue)
        }
        if icd10.isEmpty, previous.count("icd10") > 0 {
            icd10 = try previous.icd10()
            note(FeedKind.icd10.rawValue)
        }
        if gs1.isEmpty, previous.count("gs1_items") > 0 {
            gs1 = try previous.gs1()
            note(FeedKind.gs1.rawValue)
        }
        if registry.isEmpty, !previous.registry.isEmpty {
            registry = previous.registry
            note(FeedKind.pharmacyRegistry.rawValue)
        }
    }

    /// Adds a reference file's line to the report and returns its accepted records.
    private static func record<Record>(_ output: FeedOutput<Record>, _ file: FeedFile, _ adapter: some FeedAdapter, _ kind: FeedKind,
                                       _ report: inout RunReport) -> [Record] {
        let output = output.failure == nil ? output : output.rejectingAll()
        var result = FeedResult(file: file.name, size: file.size, sha256: PharmacyFeedParser.digest(file.path),
                                kind: kind.rawValue, adapter: adapter.name, outcome: output.failure == nil ? .loaded : .rejected)
        if let failure = output.failure {
            result.reason = failure.reason.rawValue
            result.message = "\(failure.reason) at line \(failure.line): \(failure.message)"
        }
        result.count(output)
        report.feeds.append(result)
        report.rejects += output.rejects
        report.warnings += output.warnings
        return output.records
    }

    /// Parses every list; the valid one with the latest `validFrom` not after
    /// the run's date is in force, the others are superseded.
    private mutating func loadReimbursement(_ files: [FeedFile], adapter: ReimbursementListAdapter, runDate: String,
                                            knownICD10: Set<String>?, report: inout RunReport) {
        var parsed: [(file: FeedFile, output: FeedOutput<ReimbursementEntry>, validFrom: String?)] = []
        for file in files {
            let (output, validFrom) = adapter.parse(file)
            parsed.append((file, output, validFrom))
        }
        let inForce = parsed.indices
            .filter { parsed[$0].output.failure == nil && (parsed[$0].validFrom ?? "9999") <= runDate }
            .max { (parsed[$0].validFrom!, parsed[$0].file.name) < (parsed[$1].validFrom!, parsed[$1].file.name) }
        for (index, list) in parsed.enumerated() {
            var result = FeedResult(file: list.file.name, size: list.file.size, sha256: PharmacyFeedParser.digest(list.file.path),
                                    kind: FeedKind.reimbursementList.rawValue, adapter: adapter.name, outcome: .loaded)
            result.exportedAt = list.validFrom
            if list.output.failure != nil {
                let whole = list.output.rejectingAll()
                result.outcome = .rejected
                result.reason = list.output.failure?.reason.rawValue
                result.message = list.output.failure.map { "\($0.reason) at line \($0.line): \($0.message)" }
                result.count(whole)
                report.rejects += whole.rejects
            } else if index != inForce {
                result.outcome = .superseded
                result.message = (list.validFrom ?? "") > runDate
                    ? "valid from \(list.validFrom ?? "?"), after the run's date \(runDate)"
                    : "an a later list is in force: \(inForce.map { parsed[$0].file.name } ?? "none")"
            } else {
                result.count(list.output)
                report.rejects += list.output.rejects
                report.warnings += list.output.warnings
                reimbursementValidFrom = list.validFrom
                take(list.output, file: list.file.name, knownICD10: knownICD10, report: &report)
            }
            report.feeds.append(result)
        }
    }

    private mutating func take(_ output: FeedOutput<ReimbursementEntry>, file: String, knownICD10: Set<String>?, report: inout RunReport) {
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
                        report.warnings.append(Warning(file: file, line: line, key: "\(code)/\(rate)", code: .unknownICD10,
                                                       message: "diagnosis code \(end) is not in the ICD-10 list; kept"))
                    }
                }
            }
        }
    }

    /// GS1 supplies image URL and producer (brand) where the stock feeds gave none.
    func enrich(_ item: inout ItemRow) {
        guard let gtin = item.gtin, let sheet = gs1[gtin] else { return }
        if item.imageURL == nil { item.imageURL = sheet.imageURL }
        if item.producer == nil { item.producer = sheet.brand }
    }

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
