/// A count that may fall against current's by at most a share: offers
/// (`offers`, `--max-offer-drop`) and pharmacies (`pharmacies`,
/// `--max-pharmacy-drop`). A night whose feeds half failed would otherwise
/// publish half a country.
public struct CountFallGate: Gate {
    public let name: String
    public let maxFallPercent: Int
    let count: @Sendable (NightCounts) -> (current: Int, new: Int)

    public var scope: GateScope { .night }
    public var limit: String { "\(maxFallPercent) %" }

    public static func offers(maxFallPercent: Int) -> CountFallGate {
        CountFallGate(name: "offers", maxFallPercent: maxFallPercent) { ($0.currentOffers, $0.offers) }
    }

    public static func pharmacies(maxFallPercent: Int) -> CountFallGate {
        CountFallGate(name: "pharmacies", maxFallPercent: maxFallPercent) { ($0.currentPharmacies, $0.pharmacies) }
    }

    public func judge(_ evidence: GateEvidence) -> GateVerdict? {
        guard case .night(let counts) = evidence else { return nil }
        let (current, new) = count(counts)
        guard current > 0 else { return nil }
        let fall = max(0, current - new)
        let tenths = GateVerdict.tenths(fall, of: current)
        return GateVerdict(passed: fall * 100 <= maxFallPercent * current, current: current, new: new, tenths: tenths,
                           limitValue: Double(maxFallPercent), margin: Double(maxFallPercent) - Double(tenths) / 10,
                           message: "gate \(name): \(current) → \(new), a fall of \(GateVerdict.percent(tenths: tenths)) % (at most \(maxFallPercent) % allowed)")
    }
}
