import Foundation
import IngestAdapters
import IngestCore
import IngestSnapshot

/// Everything read from reference files, validated, ready to join stock
/// data and to be written: one `ReferenceSet` per kind, all loaded through
/// the one path below. Each file's counts, rejects and warnings go to the
/// run's report as it is loaded.
struct ReferenceData {
    private var sets: [FeedKind: any ReferenceSet] = [:]
    /// The date in force of each dated kind, by its `meta` key.
    private(set) var validFrom: [String: String] = [:]

    /// The set of one kind; empty when nothing of it was loaded.
    subscript<Set: ReferenceSet>(_ type: Set.Type) -> Set {
        sets[Set.kind].flatMap { $0 as? Set } ?? Set()
    }

    /// Loads every reference file of the classification, kind by kind in
    /// `kinds` order. `runDate` (ISO) picks the dated files in force; a kind
    /// with nothing accepted tonight is kept from `previous`. A file whose
    /// reject rate passes its mapping's limit, else the run's
    /// (`maxRejectRatePercent`), or that rejects every row, is rejected whole
    /// (FEEDS.md §12.1): it never replaces the one in force.
    static func load(_ files: FeedClassification, kinds: [any ReferenceSet.Type], runDate: String, previous: PreviousSnapshot?,
                     maxRejectRatePercent: Int, currency: String = "EUR", report: inout RunReport) throws -> ReferenceData {
        var data = ReferenceData()
        for kind in kinds {
            try data.load(kind, files: files.references[kind.kind] ?? [], claimants: files.referenceAdapters, runDate: runDate,
                          previous: previous, maxRejectRatePercent: maxRejectRatePercent, currency: currency, report: &report)
        }
        return data
    }

    private mutating func load<Set: ReferenceSet>(_ type: Set.Type, files: [FeedFile], claimants: [String: any FeedAdapter], runDate: String,
                                                  previous: PreviousSnapshot?, maxRejectRatePercent: Int, currency: String,
                                                  report: inout RunReport) throws {
        var set = Set()
        let parsed = files.map { file in
            var output = FeedOutput<Set.Adapter.Record>(file: file.name)
            // A mapping of the kind reads its own file; its header, if any, is the date it is valid from.
            if let mapped = claimants[file.name] as? any FeedAdapter<Set.Adapter.Record>, mapped.name != Set.adapter.name {
                let date = Self.parse(file, with: mapped, into: &output)
                output.failIfTooManyRejects(limit: mapped.maxRejectRatePercent ?? maxRejectRatePercent)
                return (file: file, output: output, adapter: mapped.name, validFrom: date)
            }
            let header = Set.adapter.parse(file, into: &output)
            output.failIfTooManyRejects(limit: maxRejectRatePercent)
            if output.failure == nil, let problem = Set.problem(file, header: header, snapshotCurrency: currency) { output.failure = problem }
            return (file: file, output: output, adapter: Set.adapter.name, validFrom: Set.validFrom(file, header: header))
        }
        switch Set.selection {
        case .everyFile:
            for (file, output, adapter, _) in parsed {
                try set.add(Self.record(output, file, kind: Set.kind, adapter: adapter, report: &report), from: file,
                            loaded: self, report: &report)
            }
        case .latestInForce(let metaKey):
            let dated = parsed.map { (file: $0.file, output: $0.output, adapter: $0.adapter, validFrom: $0.validFrom) }
            let inForce = try Self.loadDated(dated, kind: Set.kind, runDate: runDate, report: &report)
            if let inForce {
                try set.add(dated[inForce].output.records, from: dated[inForce].file, loaded: self, report: &report)
                validFrom[metaKey] = dated[inForce].validFrom
            }
        }
        if set.isEmpty, let previous, try Self.canKeep(Set.self, from: previous, report: &report), try set.keep(from: previous) {
            if case .latestInForce(let metaKey) = Set.selection { validFrom[metaKey] = previous.meta[metaKey] }
            report.carriedOver.append(CarryOver(kind: .reference, key: Set.kind.rawValue, fromVersion: previous.version,
                                                lastRefresh: nil, dropped: false, offers: nil))
        }
        sets[Set.kind] = set
    }

    /// Whether `previous` has every table of the kind. A `current` of an
    /// older schema may lack a kind added since (SNAPSHOT.md: new tables
    /// start empty): then nothing is kept, the report says so, and the kind
    /// is carried from tonight's snapshot on. Asked here, before any
    /// `keep(from:)`, so no kind's own query meets a missing table.
    private static func canKeep<Set: ReferenceSet>(_ type: Set.Type, from previous: PreviousSnapshot, report: inout RunReport) throws -> Bool {
        let missing = try Set.tables.map(\.name).filter { try !previous.hasTable($0) }
        guard !missing.isEmpty else { return true }
        try report.warnings.append(Warning(
            file: "", line: 0, key: Set.kind.rawValue, code: .tableNotInCurrent,
            message: "no \(Set.kind.rawValue) file tonight, and current (\(previous.version), schema \(previous.meta["schema_version"] ?? "?")) has no table \(missing.joined(separator: ", ")) to keep it from: it starts empty"))
        return false
    }

    /// Every kind's rows into the snapshot, after items and offers.
    func write(to writer: SnapshotWriter, kinds: [any ReferenceSet.Type]) throws {
        for kind in kinds { try write(kind, to: writer) }
    }

    private func write<Set: ReferenceSet>(_ type: Set.Type, to writer: SnapshotWriter) throws {
        try self[type].write(to: writer)
    }

    /// Parses with a mapped adapter of the kind; its header, when it is text, is the date the file is valid from.
    private static func parse<Adapter: FeedAdapter>(_ file: FeedFile, with adapter: Adapter, into output: inout FeedOutput<Adapter.Record>) -> String? {
        adapter.parse(file, into: &output) as? String
    }

    /// Adds a reference file's line to the report and returns its accepted records.
    private static func record<Record>(_ output: FeedOutput<Record>, _ file: FeedFile, kind: FeedKind, adapter: String,
                                       report: inout RunReport) throws -> [Record] {
        let output = output.failure == nil ? output : output.rejectingAll()
        var result = FeedResult(file: file.name, size: file.size, sha256: PharmacyFeedParser.digest(file),
                                kind: kind.rawValue, adapter: adapter, outcome: output.failure == nil ? .loaded : .rejected)
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
    /// the valid one with the latest date not after the run's is in force;
    /// the others are superseded. Returns the index of the one in force.
    private static func loadDated<Record>(
        _ parsed: [(file: FeedFile, output: FeedOutput<Record>, adapter: String, validFrom: String?)], kind: FeedKind,
        runDate: String, report: inout RunReport
    ) throws -> Int? {
        let inForce = parsed.indices
            .filter { parsed[$0].output.failure == nil && (parsed[$0].validFrom ?? "9999") <= runDate }
            .max { (parsed[$0].validFrom!, parsed[$0].file.name) < (parsed[$1].validFrom!, parsed[$1].file.name) }
        for (index, list) in parsed.enumerated() {
            var result = FeedResult(file: list.file.name, size: list.file.size, sha256: PharmacyFeedParser.digest(list.file),
                                    kind: kind.rawValue, adapter: list.adapter, outcome: .loaded)
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
            }
            report.feeds.append(result)
        }
        return inForce
    }
}

// MARK: What the stock load asks of the reference data.

extension ReferenceData {
    var registry: [String: PharmacyRecord] { self[PharmacyRegistrySet.self].records }
    var reimbursement: ReimbursementCatalog { self[ReimbursementSet.self].catalog }
}

/// What the register and GS1 add to an item, taken out of `ReferenceData`
/// once per run: `enrich` runs for every item, and looking a set up by kind
/// (a dictionary and a cast) each time would be paid per item.
struct ItemEnrichment {
    let register: [String: MedicinePackage]
    let gs1: [String: GS1TradeItem]

    init(_ reference: ReferenceData) {
        self.init(register: reference[MedicineRegisterSet.self].packages, gs1: reference[GS1Set.self].items)
    }

    init(register: [String: MedicinePackage], gs1: [String: GS1TradeItem]) {
        self.register = register
        self.gs1 = gs1
    }

    /// The register supplies the leaflet URL, and ATC code and substance
    /// where the stock feeds gave none; where both name an ATC code and they
    /// differ, the register wins and a warning names both. GS1 supplies image
    /// URL and producer (brand) where the stock feeds gave none; an item a
    /// stock feed names by a CASE or PALLET GTIN takes what its own
    /// datasheet lacks from the base unit below it (FEEDS.md §10).
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
        let base = baseUnit(below: sheet)
        if item.imageURL == nil { item.imageURL = sheet.imageURL ?? base?.imageURL }
        if item.producer == nil { item.producer = sheet.brand ?? base?.brand }
    }

    /// The datasheet at the bottom of `sheet`'s hierarchy, following the first
    /// child down (four levels at most, so a cycle cannot hold it); nil for a base unit.
    private func baseUnit(below sheet: GS1TradeItem) -> GS1TradeItem? {
        var current = sheet
        for _ in 0..<GS1TradeItem.levels.count {
            guard let child = current.children.first.flatMap({ gs1[$0.gtin] }) else { break }
            current = child
        }
        return current.gtin == sheet.gtin ? nil : current
    }
}

extension WarningCode {
    /// A reference kind with no file tonight whose table `current` (an older schema) lacks.
    public static let tableNotInCurrent = WarningCode(rawValue: "table_not_in_current")
    /// No reimbursement list in the snapshot's currency is in force: every tier price is empty (said once a night).
    public static let noReimbursementList = WarningCode(rawValue: "no_reimbursement_list")
    /// The stock feed and the medicine register name different ATC codes for an item.
    public static let atcConflict = WarningCode(rawValue: "atc_conflict")
}
