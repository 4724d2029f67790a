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
            "gate \(gate): \(current) → \(new), a fall of \(dropPercent) % (at most \(limitPercent) % allowed)"
        }
    }

    /// The gates that fail for the new counts against the current ones.
    public func evaluate(newOffers: Int, newPharmacies: Int, currentOffers: Int, currentPharmacies: Int) -> [Failure] {
        var failures: [Failure] = []
        func check(_ gate: String, _ current: Int, _ new: Int, _ limit: Int) {
            guard current > 0, new < current else { return }
            // fall × 1000 / current, in tenths of a percent, compared exactly.
            let tenths = Int(HalfUpRounding.divide(Int128(current - new) * 1000, by: Int128(current)))
            guard (current - new) * 100 > limit * current else { return }
            failures.append(Failure(gate: gate, current: current, new: new,
                                    dropPercent: "\(tenths / 10).\(tenths % 10)", limitPercent: limit))
        }
        check("offers", currentOffers, newOffers, maxOfferDropPercent)
        check("pharmacies", currentPharmacies, newPharmacies, maxPharmacyDropPercent)
        return failures
    }

    /// Whether a feed's rejects exceed the allowed share.
    public func rejectRateExceeded(read: Int, rejected: Int) -> Bool {
        read > 0 && rejected * 100 > maxRejectRatePercent * read
    }
}

extension RejectReason {
    public static let rejectRateExceeded = RejectReason(rawValue: "reject_rate_exceeded")
}
