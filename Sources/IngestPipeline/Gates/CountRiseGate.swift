/// A count that may rise against current's by at most a share of current's
/// pharmacies (FEEDS.md §12): pharmacies (`pharmacies_rise`,
/// `--max-pharmacy-rise`), and pharmacies the registry does not know
/// (`unregistered_pharmacies`, `--max-unregistered-rise`). A chain file with
/// its columns swapped once brought 176 phantom pharmacies to a deployment of
/// 20, and gates on falls alone let it pass. A rise of
/// `QualityGates.riseFloor` or fewer always passes: on a small deployment one
/// new pharmacy is a large percentage and no fault.
public struct CountRiseGate: Gate {
    public let name: String
    public let maxRisePercent: Int
    let option: String
    /// What is counted, as the message says it after the counts (empty: pharmacies).
    let counted: String
    let count: @Sendable (NightCounts) -> (current: Int, new: Int)

    public var scope: GateScope { .night }
    public var limit: String { "\(maxRisePercent) %" }

    public static func pharmacies(maxRisePercent: Int) -> CountRiseGate {
        CountRiseGate(name: "pharmacies_rise", maxRisePercent: maxRisePercent, option: "--max-pharmacy-rise", counted: "") {
            ($0.currentPharmacies, $0.pharmacies)
        }
    }

    public static func unregistered(maxRisePercent: Int) -> CountRiseGate {
        CountRiseGate(name: "unregistered_pharmacies", maxRisePercent: maxRisePercent, option: "--max-unregistered-rise",
                      counted: " pharmacies not in the registry") { ($0.currentUnregisteredPharmacies, $0.unregisteredPharmacies) }
    }

    public func judge(_ evidence: GateEvidence) -> GateVerdict? {
        guard case .night(let counts) = evidence, counts.currentPharmacies > 0 else { return nil }
        let (current, new) = count(counts)
        let rise = max(0, new - current)
        let tenths = GateVerdict.tenths(rise, of: counts.currentPharmacies)
        let share = counted.isEmpty ? "" : " of current's pharmacies"
        return GateVerdict(passed: rise <= QualityGates.riseFloor || rise * 100 <= maxRisePercent * counts.currentPharmacies,
                           current: current, new: new, tenths: tenths, limitValue: Double(maxRisePercent),
                           margin: Double(maxRisePercent) - Double(tenths) / 10,
                           message: "gate \(name): \(current) → \(new)\(counted), a rise of \(GateVerdict.percent(tenths: tenths)) %\(share) (at most \(maxRisePercent) % allowed, \(option))")
    }
}
