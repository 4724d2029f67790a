import IngestCore

/// The limits of the night's gates (each a percentage, set from the command
/// line; defaults per the operations issue) and of a feed's reject rate.
/// The gates themselves are in `GateCatalog`.
public struct QualityGates: Sendable, Equatable {
    /// Offers may fall by at most this much against current.
    public var maxOfferDropPercent: Int
    /// Pharmacies may fall by at most this much against current.
    public var maxPharmacyDropPercent: Int
    /// A stock feed rejecting more than this share of its records is rejected whole.
    public var maxRejectRatePercent: Int
    /// True when the command line set `maxRejectRatePercent`: it then wins
    /// over a mapping's own `[limits] max_reject_rate`.
    public var rejectRateFromCommandLine = false
    /// Pharmacies may rise by at most this much against current (`CountRiseGate`).
    public var maxPharmacyRisePercent = 50
    /// Pharmacies the registry does not know may rise by at most this share
    /// of current's pharmacies.
    public var maxUnregisteredRisePercent = 10
    /// At least this share of current's pharmacies must be fresh tonight (`FreshShareGate`); 0 switches it off.
    public var minFreshSharePercent = 50
    /// A rise of this many pharmacies or fewer never fails a rise gate: on a
    /// small deployment, one new pharmacy is a large percentage and no fault.
    public static let riseFloor = 5

    public init(maxOfferDropPercent: Int = 20, maxPharmacyDropPercent: Int = 10, maxRejectRatePercent: Int = 5) {
        self.maxOfferDropPercent = maxOfferDropPercent
        self.maxPharmacyDropPercent = maxPharmacyDropPercent
        self.maxRejectRatePercent = maxRejectRatePercent
    }

    /// A gate that failed, and by how much.
    public struct Failure: Sendable, Equatable, Codable, CustomStringConvertible {
        public var gate: String
        public var current: Int
        public var new: Int
        /// The fall in percent, one decimal (`37.5`).
        public var dropPercent: String
        public var limitPercent: Int
        /// What the gate tells the operator (`gate offers: 1000 → 500, a fall of 50.0 % …`).
        public var message: String

        public var description: String { message }
    }

    /// One gate judged: the counts, the fall and the limit, passed or not:
    /// what the HTML report shows as the gate's margin.
    public struct Measure: Sendable, Equatable {
        public var gate: String
        public var current: Int
        public var new: Int
        /// The fall in tenths of a percent, rounded half up; 0 when the count
        /// rose. For the rise gates (`pharmacies_rise`, `unregistered_pharmacies`), the rise;
        /// for `fresh_share`, the share itself.
        public var dropTenths: Int
        public var limitPercent: Int
        public var passed: Bool
        /// How many percentage points inside its limit the measure stayed (negative: outside).
        public var marginPoints: Double
        /// The gate's message, for when it failed.
        public var message: String

        /// A night gate's verdict as the report keeps it.
        public init(gate: String, verdict: GateVerdict) {
            self.gate = gate
            current = verdict.current
            new = verdict.new
            dropTenths = verdict.tenths
            limitPercent = Int(verdict.limitValue)
            passed = verdict.passed
            marginPoints = verdict.margin ?? 0
            message = verdict.message
        }

        /// `37.5`: the fall as the report prints it.
        public var dropPercent: String { GateVerdict.percent(tenths: dropTenths) }

        /// The gate that failed, as the report, the manifest and `--force` name it.
        var failure: Failure {
            Failure(gate: gate, current: current, new: new, dropPercent: dropPercent, limitPercent: limitPercent, message: message)
        }
    }

    /// The reject-rate limit for a feed whose adapter has `own` (a mapping's).
    public func maxRejectRate(own: Int?) -> Int {
        rejectRateFromCommandLine ? maxRejectRatePercent : own ?? maxRejectRatePercent
    }

    /// Whether a feed's rejects exceed the allowed share. Records a
    /// mapping's filter left out count in neither side (FEEDS.md §12).
    public func rejectRateExceeded(read: Int, rejected: Int, filtered: Int = 0, own: Int? = nil) -> Bool {
        let (counted, failed) = (read - filtered, rejected - filtered)
        return counted > 0 && failed * 100 > maxRejectRate(own: own) * counted
    }
}

extension RejectReason {
    public static let rejectRateExceeded = RejectReason(rawValue: "reject_rate_exceeded")
}
