import IngestCore

/// The checks a finished snapshot must pass before it replaces `current`,
/// against the snapshot it would replace. Defaults per the operations issue;
/// each is a percentage and can be set from the command line.
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
    /// Pharmacies may rise by at most this much against current (FEEDS.md
    /// §12): a chain file with its columns swapped once brought 176 phantom
    /// pharmacies to a deployment of 20, and gates on falls alone let it pass.
    public var maxPharmacyRisePercent = 50
    /// Pharmacies the registry does not know may rise by at most this share
    /// of current's pharmacies.
    public var maxUnregisteredRisePercent = 10
    /// At least this share of current's pharmacies must be fresh tonight
    /// (a feed loaded tonight): a night where most feeds did not come
    /// (a broken upload, half a mount) would otherwise publish yesterday's
    /// stock as today's for most of the country. 0 switches it off.
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

        public var description: String {
            switch gate {
            case "pharmacies_rise":
                "gate \(gate): \(current) → \(new), a rise of \(dropPercent) % (at most \(limitPercent) % allowed, --max-pharmacy-rise)"
            case "fresh_share":
                "gate \(gate): \(new) of current's \(current) pharmacies sent a feed that loaded tonight, \(dropPercent) % (at least \(limitPercent) % needed, --min-fresh-share)"
            case "unregistered_pharmacies":
                "gate \(gate): \(current) → \(new) pharmacies not in the registry, a rise of \(dropPercent) % of current's pharmacies (at most \(limitPercent) % allowed, --max-unregistered-rise)"
            default:
                "gate \(gate): \(current) → \(new), a fall of \(dropPercent) % (at most \(limitPercent) % allowed)"
            }
        }
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

        /// `37.5`: the fall as the report prints it.
        public var dropPercent: String { "\(dropTenths / 10).\(dropTenths % 10)" }

        /// The gate that failed, as the report, the manifest and `--force` name it.
        var failure: Failure {
            Failure(gate: gate, current: current, new: new, dropPercent: dropPercent, limitPercent: limitPercent)
        }
    }

    /// Every gate judged for the new counts against the current ones; none without a current count.
    public func measure(newOffers: Int, newPharmacies: Int, currentOffers: Int, currentPharmacies: Int) -> [Measure] {
        func measure(_ gate: String, _ current: Int, _ new: Int, _ limit: Int) -> Measure? {
            guard current > 0 else { return nil }
            let fall = max(0, current - new)
            // fall × 1000 / current, in tenths of a percent; the verdict compares exactly.
            let tenths = Int(HalfUpRounding.divide(Int128(fall) * 1000, by: Int128(current)))
            return Measure(gate: gate, current: current, new: new, dropTenths: tenths, limitPercent: limit,
                           passed: fall * 100 <= limit * current)
        }
        return [measure("offers", currentOffers, newOffers, maxOfferDropPercent),
                measure("pharmacies", currentPharmacies, newPharmacies, maxPharmacyDropPercent)].compactMap { $0 }
    }

    /// The rise gates: pharmacies against current's, and pharmacies the
    /// registry does not know against current's such ones, as a share of
    /// current's pharmacies. A rise of `riseFloor` or fewer always passes.
    public func measureRises(newPharmacies: Int, currentPharmacies: Int, newUnregistered: Int, currentUnregistered: Int) -> [Measure] {
        guard currentPharmacies > 0 else { return [] }
        func measure(_ gate: String, _ current: Int, _ new: Int, _ limit: Int) -> Measure {
            let rise = max(0, new - current)
            let tenths = Int(HalfUpRounding.divide(Int128(rise) * 1000, by: Int128(currentPharmacies)))
            return Measure(gate: gate, current: current, new: new, dropTenths: tenths, limitPercent: limit,
                           passed: rise <= Self.riseFloor || rise * 100 <= limit * currentPharmacies)
        }
        return [measure("pharmacies_rise", currentPharmacies, newPharmacies, maxPharmacyRisePercent),
                measure("unregistered_pharmacies", currentUnregistered, newUnregistered, maxUnregisteredRisePercent)]
    }

    /// The fresh-share gate: pharmacies fresh tonight as a share of current's
    /// pharmacies; none without a current or with the gate off. As for the
    /// rise gates, `riseFloor` or fewer missing never fail it: on a small
    /// deployment two late feeds are a large share, and carry-over is for them.
    public func measureFreshShare(fresh: Int, currentPharmacies: Int) -> Measure? {
        guard currentPharmacies > 0, minFreshSharePercent > 0 else { return nil }
        let tenths = Int(HalfUpRounding.divide(Int128(fresh) * 1000, by: Int128(currentPharmacies)))
        return Measure(gate: "fresh_share", current: currentPharmacies, new: fresh, dropTenths: tenths, limitPercent: minFreshSharePercent,
                       passed: currentPharmacies - fresh <= Self.riseFloor || fresh * 100 >= minFreshSharePercent * currentPharmacies)
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
