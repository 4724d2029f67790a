/// Two pharmacies may not hold the very same item lines (`duplicate_stock`,
/// `--duplicate-stock-min-items`): another branch's stock under a
/// pharmacy's id. Of two feeds tonight the newer export is the copy; stock
/// carried from current is never the copy. Feeds with fewer items than the
/// minimum are not judged (small pharmacies may well match); 0 switches it off.
public struct DuplicateStockCheck: Gate {
    public let minItems: Int
    public var name: String { "duplicate_stock" }
    public var scope: GateScope { .pharmacy }
    public var limit: String { minItems > 0 ? "≥ \(minItems) items" : "off" }

    public init(minItems: Int) {
        self.minItems = minItems
    }

    public func judge(_ evidence: GateEvidence) -> GateVerdict? {
        guard case .pharmacy(let feed) = evidence, minItems > 0, feed.items >= minItems, !feed.rejectedByEarlierGate else { return nil }
        guard let twin = feed.twin else { return GateVerdict(passed: true) }
        let message = if let version = twin.carriedFrom {
            "the same \(feed.items) item lines (aptcode, price, quantity) as the stock pharmacy \(twin.original) keeps from version \(version): \(twin.copyFile) is taken for a copy and pharmacy \(twin.copy) keeps its data"
        } else {
            "the same \(feed.items) item lines (aptcode, price, quantity) as pharmacy \(twin.original)'s \(twin.originalFile): \(twin.copyFile), the newer file, is taken for a copy and pharmacy \(twin.copy) keeps its data"
        }
        return GateVerdict(passed: false, message: message, subject: twin.copy)
    }
}
