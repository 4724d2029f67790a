import IngestCore
import IngestPipeline

/// Issue 47, item 3: gates a deployment could add, written as
/// docs/ADDING_A_GATE.md says: one file each, registered with one line.

/// At most a share of tonight's pharmacies may be stale (carried over): the night scope.
struct StaleShareGate: Gate {
    let maxStalePercent: Int
    var name: String { "stale_share" }
    var scope: GateScope { .night }
    var limit: String { "\(maxStalePercent) %" }

    func judge(_ evidence: GateEvidence) -> GateVerdict? {
        guard case .night(let counts) = evidence, counts.pharmacies > 0 else { return nil }
        let stale = counts.pharmacies - counts.freshPharmacies
        let tenths = GateVerdict.tenths(stale, of: counts.pharmacies)
        return GateVerdict(passed: stale * 100 <= maxStalePercent * counts.pharmacies, current: counts.pharmacies, new: stale, tenths: tenths,
                           limitValue: Double(maxStalePercent), margin: Double(maxStalePercent) - Double(tenths) / 10,
                           message: "gate \(name): \(stale) of \(counts.pharmacies) pharmacies stale, \(GateVerdict.percent(tenths: tenths)) % (at most \(maxStalePercent) % allowed)")
    }
}

/// A pharmacy's feed may not grow past a number of items: the pharmacy scope.
struct ItemCeilingCheck: Gate {
    let maxItems: Int
    var name: String { "item_ceiling" }
    var scope: GateScope { .pharmacy }
    var limit: String { "≤ \(maxItems) items" }

    func judge(_ evidence: GateEvidence) -> GateVerdict? {
        guard case .pharmacy(let feed) = evidence else { return nil }
        return GateVerdict(passed: feed.items <= maxItems, new: feed.items, limitValue: Double(maxItems),
                           margin: Double(maxItems - feed.items), measured: "\(feed.items) items",
                           message: "\(feed.items) items, over the \(maxItems) a pharmacy may send")
    }
}
