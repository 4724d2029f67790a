/// At least a share of current's pharmacies must be fresh tonight, their
/// feed loaded tonight (`--min-fresh-share`): a night where most feeds did
/// not come (a broken upload, half a mount) would otherwise publish
/// yesterday's stock as today's for most of the country. As for the rise
/// gates, `QualityGates.riseFloor` or fewer missing never fail it: on a small
/// deployment two late feeds are a large share, and carry-over is for them.
/// 0 switches it off.
public struct FreshShareGate: Gate {
    public let minSharePercent: Int
    public var name: String { "fresh_share" }
    public var scope: GateScope { .night }
    public var limit: String { minSharePercent > 0 ? "\(minSharePercent) %" : "off" }

    public init(minSharePercent: Int) {
        self.minSharePercent = minSharePercent
    }

    public func judge(_ evidence: GateEvidence) -> GateVerdict? {
        guard case .night(let counts) = evidence, counts.currentPharmacies > 0, minSharePercent > 0 else { return nil }
        let (current, fresh) = (counts.currentPharmacies, counts.freshPharmacies)
        let tenths = GateVerdict.tenths(fresh, of: current)
        return GateVerdict(passed: current - fresh <= QualityGates.riseFloor || fresh * 100 >= minSharePercent * current,
                           current: current, new: fresh, tenths: tenths, limitValue: Double(minSharePercent), margin: Double(tenths) / 10 - Double(minSharePercent),
                           message: "gate \(name): \(fresh) of current's \(current) pharmacies sent a feed that loaded tonight, \(GateVerdict.percent(tenths: tenths)) % (at least \(minSharePercent) % needed, --min-fresh-share)")
    }
}
