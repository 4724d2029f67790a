import IngestCore

/// One listed tier of a reimbursed package, as published.
public struct ReimbursementTier: Sendable, Hashable {
    public var rate: Int
    public var diagnoses: String?
    public var info: String?

    public init(rate: Int, diagnoses: String?, info: String?) {
        self.rate = rate
        self.diagnoses = diagnoses
        self.info = info
    }
}

/// What a reimbursement list holds, record by record. Packages, legend
/// abbreviations and parsed diagnosis items are each a record: each ends in
/// the snapshot or in the rejects. Diagnosis items of a rejected package are
/// not read.
public enum ReimbursementEntry: LocatedRecord, Hashable {
    case package(code: String, limitCents: Int64?, tiers: [ReimbursementTier], line: Int)
    case legend(code: String, text: String, line: Int)
    case diagnosis(packageCode: String, rate: Int, range: DiagnosisRange, line: Int)

    public var recordKey: String {
        switch self {
        case .package(let code, _, _, _): return code
        case .legend(let code, _, _): return code
        case .diagnosis(let code, let rate, let range, _): return "\(code)/\(rate)/\(range.from)"
        }
    }

    public var line: Int {
        switch self {
        case .package(_, _, _, let line), .legend(_, _, let line), .diagnosis(_, _, _, let line): return line
        }
    }
}

/// One group of the ATC classification (FEEDS.md §8).
public struct ATCGroup: LocatedRecord, Hashable {
    public var code: String
    public var name: String
    public var level: Int
    public var parent: String?
    public var line: Int
    public var recordKey: String { code }
}

/// One ICD-10 code (FEEDS.md §9).
public struct ICD10Code: LocatedRecord, Hashable {
    public var code: String
    public var name: String
    public var line: Int
    public var recordKey: String { code }
}

/// One GS1 trade item datasheet (FEEDS.md §10).
public struct GS1TradeItem: LocatedRecord, Hashable {
    public struct Child: Sendable, Hashable {
        public var gtin: String
        public var quantity: Int64
        public init(gtin: String, quantity: Int64) {
            self.gtin = gtin
            self.quantity = quantity
        }
    }
    /// One `attribute` of an `inspection`: 0 unable, 1 passed, 2 warning, 3 failed.
    public struct Inspection: Sendable, Hashable {
        public var attribute: String
        public var result: Int
        /// The inspection's `date`, as written; nil where not given.
        public var inspectedOn: String?
        public init(attribute: String, result: Int, inspectedOn: String?) {
            self.attribute = attribute
            self.result = result
            self.inspectedOn = inspectedOn
        }

        public static let failed = 3
    }

    public var gtin: String
    public var unitDescriptor: String
    public var brand: String?
    /// The Estonian description, else the first (what the snapshot's `description` holds).
    public var description: String?
    public var netContent: String?
    public var imageURL: String?
    public var children: [Child]
    /// Schema 5 (FEEDS.md §10: kept, not dropped): descriptions per language, in the order written.
    public var descriptions: [(lang: String, text: String)] = []
    public var providerGLN: String?
    public var netContentUnit: String?
    /// Converted from the datasheet's UN/ECE codes: millimetres and grams.
    public var heightMM, widthMM, depthMM, grossWeightG: Double?
    public var inspections: [Inspection] = []
    public var checksPassed = 0
    public var checksWarning = 0
    public var checksFailed = 0
    public var checksUnable = 0
    public var line: Int
    public var recordKey: String { gtin }

    /// Packaging levels from the bottom (FEEDS.md §10): a child is of a lower level than its parent.
    public static let levels = ["BASE_UNIT_OR_EACH", "PACK_OR_INNER_PACK", "CASE", "PALLET"]
    public var level: Int? { Self.levels.firstIndex(of: unitDescriptor) }

    public static func == (a: Self, b: Self) -> Bool {
        a.gtin == b.gtin && a.unitDescriptor == b.unitDescriptor && a.brand == b.brand && a.description == b.description
            && a.netContent == b.netContent && a.imageURL == b.imageURL && a.children == b.children
            && a.descriptions.map { [$0.lang, $0.text] } == b.descriptions.map { [$0.lang, $0.text] } && a.providerGLN == b.providerGLN
            && a.netContentUnit == b.netContentUnit && a.heightMM == b.heightMM && a.widthMM == b.widthMM && a.depthMM == b.depthMM
            && a.grossWeightG == b.grossWeightG && a.inspections == b.inspections && a.checksPassed == b.checksPassed
            && a.checksWarning == b.checksWarning && a.checksFailed == b.checksFailed && a.checksUnable == b.checksUnable && a.line == b.line
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(gtin)
        hasher.combine(line)
    }

    public init(gtin: String, unitDescriptor: String, brand: String?, description: String?, netContent: String?,
                imageURL: String?, children: [Child], line: Int) {
        self.gtin = gtin
        self.unitDescriptor = unitDescriptor
        self.brand = brand
        self.description = description
        self.netContent = netContent
        self.imageURL = imageURL
        self.children = children
        self.line = line
    }
}

extension RejectReason {
    public static let badTier = RejectReason(rawValue: "bad_tier")
    public static let badDiagnosis = RejectReason(rawValue: "bad_diagnosis")
    public static let badATCCode = RejectReason(rawValue: "bad_atc_code")
    public static let missingParent = RejectReason(rawValue: "missing_parent")
    public static let badICD10Code = RejectReason(rawValue: "bad_icd10_code")
    public static let badHierarchy = RejectReason(rawValue: "bad_hierarchy")
}

extension WarningCode {
    public static let unknownICD10 = WarningCode(rawValue: "unknown_icd10")
    public static let unknownMarker = WarningCode(rawValue: "unknown_marker")
    public static let unknownChildGTIN = WarningCode(rawValue: "unknown_child_gtin")
    /// A GS1 dimension, weight or GLN that cannot be read: that value is left out, the datasheet stands.
    public static let badMeasure = WarningCode(rawValue: "bad_measure")
}
