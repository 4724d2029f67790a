import IngestCore

/// One judgement of a night: a quality gate on the whole snapshot, or a
/// wrong-data check on each pharmacy's feed. Both kinds once lived apart
/// (gates named by strings with their messages in one switch, checks as a
/// fixed tuple in the loader), so adding one touched five places. Here a gate
/// is one type: its name (for the report, the manifest, `--force`, the HTML
/// and the metrics), what it looks at, its limit and its verdict with the
/// operator's message. `GateCatalog` lists them; docs/ADDING_A_GATE.md walks
/// through adding one.
public protocol Gate: Sendable {
    /// The name the report, the manifest, the metrics' labels and the logs use.
    var name: String { get }
    /// What it judges, and so where its verdicts go in the report.
    var scope: GateScope { get }
    /// The limit as the report prints it (`20 %`, `0.5–2`); `off` when switched off.
    var limit: String { get }
    /// The verdict on `evidence`; nil when this gate has nothing to say about
    /// it: another scope's evidence, switched off, or nothing to compare
    /// (no current, too few items in common).
    func judge(_ evidence: GateEvidence) -> GateVerdict?
}

/// Where a gate looks, and where its verdicts are kept.
public enum GateScope: String, Sendable {
    /// The new snapshot's counts against current's, once a night: a failure
    /// stops the publish (`report.gates`, `blocked`); `--force` publishes.
    case night
    /// One pharmacy's feed against that pharmacy in current, or against
    /// tonight's other feeds: a failure rejects the feed, which carries over
    /// (`report.checks`); `--force` loads it.
    case pharmacy
}

/// What gates are shown: one value a night, or one a pharmacy's feed.
public enum GateEvidence: Sendable {
    case night(NightCounts)
    case pharmacy(PharmacyEvidence)
}

/// The new snapshot's counts and current's, for the night's gates.
public struct NightCounts: Sendable, Equatable {
    public var offers: Int
    public var pharmacies: Int
    /// Pharmacies whose feed loaded tonight (not carried over).
    public var freshPharmacies: Int
    /// Pharmacies the registry does not know.
    public var unregisteredPharmacies: Int
    public var currentOffers: Int
    public var currentPharmacies: Int
    public var currentUnregisteredPharmacies: Int

    public init(offers: Int, pharmacies: Int, freshPharmacies: Int, unregisteredPharmacies: Int,
                currentOffers: Int, currentPharmacies: Int, currentUnregisteredPharmacies: Int) {
        self.offers = offers
        self.pharmacies = pharmacies
        self.freshPharmacies = freshPharmacies
        self.unregisteredPharmacies = unregisteredPharmacies
        self.currentOffers = currentOffers
        self.currentPharmacies = currentPharmacies
        self.currentUnregisteredPharmacies = currentUnregisteredPharmacies
    }
}

/// One pharmacy's feed as the checks see it: tonight's item count and
/// prices, the same pharmacy in current, and another feed with the very same
/// item lines when there is one.
public struct PharmacyEvidence: Sendable {
    public var pharmacyID: String
    /// Offers in tonight's feed.
    public var items: Int
    /// The pharmacy's item count in current; nil when current does not hold it.
    public var currentItems: Int?
    /// The median of tonight's price over current's for a sample of items
    /// both nights hold, and how many; nil without current or a price in common.
    public var priceRatio: (ratio: Double, items: Int)?
    /// Another stock with the same item lines (aptcode, price, quantity),
    /// and which of the two is taken for the copy.
    public var twin: Twin?
    /// True when a gate before this one in the catalogue already failed the
    /// feed: a feed rejected anyway is nobody's original or copy.
    public var rejectedByEarlierGate = false

    public struct Twin: Sendable {
        /// The copy's pharmacy and file, and the original's; `version` is
        /// current's when the original was carried from it.
        public var copy: String
        public var copyFile: String
        public var original: String
        public var originalFile: String
        public var carriedFrom: String?
    }

    public init(pharmacyID: String, items: Int, currentItems: Int? = nil, priceRatio: (ratio: Double, items: Int)? = nil, twin: Twin? = nil) {
        self.pharmacyID = pharmacyID
        self.items = items
        self.currentItems = currentItems
        self.priceRatio = priceRatio
        self.twin = twin
    }
}

/// A gate's verdict: passed or not, the figures the report shows, and what
/// a failure tells the operator.
public struct GateVerdict: Sendable, Equatable {
    public var passed: Bool
    /// Current's count and the new one (a night gate's figures; a check's
    /// before and after where it has them).
    public var current: Int
    public var new: Int
    /// The measure in tenths of a percent, rounded half up: a night gate's
    /// fall, rise or share.
    public var tenths: Int
    /// The limit as a number, in the gate's unit (percent, or a factor).
    public var limitValue: Double
    /// How far inside its limit a pass stayed, in the gate's unit (for the
    /// closest pass in the report and `ingest_check_margin`); nil for a
    /// pass that has no distance (no twin found).
    public var margin: Double?
    /// The measure in words for the closest pass (`120 → 100 items`).
    public var measured: String
    /// What a failure tells the operator; the reject's or the gate's message.
    public var message: String
    /// The pharmacy a check's failure rejects when it is not the judged
    /// feed's: of two feeds with the same lines, the newer is the copy.
    public var subject: String?

    public init(passed: Bool, current: Int = 0, new: Int = 0, tenths: Int = 0, limitValue: Double = 0, margin: Double? = nil,
                measured: String = "", message: String = "", subject: String? = nil) {
        self.passed = passed
        self.current = current
        self.new = new
        self.tenths = tenths
        self.limitValue = limitValue
        self.margin = margin
        self.measured = measured
        self.message = message
        self.subject = subject
    }

    /// `37.5`: tenths of a percent as the report prints them.
    public static func percent(tenths: Int) -> String { "\(tenths / 10).\(tenths % 10)" }

    /// `part` of `whole` in tenths of a percent, rounded half up, exactly.
    public static func tenths(_ part: Int, of whole: Int) -> Int {
        Int(HalfUpRounding.divide(Int128(part) * 1000, by: Int128(whole)))
    }
}
