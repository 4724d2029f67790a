import Foundation

/// A pharmacy's item count may fall against current by at most a share
/// (`item_count_drop`, `--max-item-drop`): an export cut short is
/// well-formed and wrong. 100 switches it off.
public struct ItemCountDropCheck: Gate {
    public let maxDropPercent: Int
    public var name: String { "item_count_drop" }
    public var scope: GateScope { .pharmacy }
    public var limit: String { maxDropPercent < 100 ? "\(maxDropPercent) %" : "off" }

    public init(maxDropPercent: Int) {
        self.maxDropPercent = maxDropPercent
    }

    public func judge(_ evidence: GateEvidence) -> GateVerdict? {
        guard case .pharmacy(let feed) = evidence, maxDropPercent < 100, let current = feed.currentItems else { return nil }
        let measured = "\(current) → \(feed.items) items"
        guard current > 0 else {
            return GateVerdict(passed: true, current: current, new: feed.items, limitValue: Double(maxDropPercent), margin: Double(maxDropPercent), measured: measured)
        }
        let fall = max(0, Double(current - feed.items) * 100 / Double(current))
        return GateVerdict(passed: fall <= Double(maxDropPercent), current: current, new: feed.items, limitValue: Double(maxDropPercent),
                           margin: Double(maxDropPercent) - fall, measured: measured,
                           message: "item count fell from \(current) to \(feed.items) (\(String(format: "%.1f", fall)) %), over the \(maxDropPercent) % allowed")
    }
}
