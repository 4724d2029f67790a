import IngestCore

/// The limits of the checks that catch a feed that is well-formed and wrong
/// (issue 22): `PriceShiftCheck`, `ItemCountDropCheck` and
/// `DuplicateStockCheck` in `GateCatalog`. A failed check rejects the feed,
/// which then carries over like any other rejected feed; `--force` loads it
/// anyway and the manifest says so.
public struct StockDataChecks: Sendable, Equatable {
    /// The median price ratio against current may lie in [1/f, f]; 0 switches the check off.
    public var maxPriceRatio: Double = 2
    /// A pharmacy's item count may fall by at most this share; 100 switches the check off.
    public var maxItemDropPercent: Int = 50
    /// Two feeds with the same item lines, at least this many, are `duplicate_stock`; 0 switches the check off.
    public var duplicateMinItems: Int = 50
    /// Items sampled per pharmacy for the price ratio (point lookups in current, so the check costs
    /// a fixed amount per pharmacy, not per offer); fewer than `minCommonItems` in common: no verdict.
    public var priceSample = 256
    public var minCommonItems = 5

    public init(maxPriceRatio: Double = 2, maxItemDropPercent: Int = 50, duplicateMinItems: Int = 50) {
        self.maxPriceRatio = maxPriceRatio
        self.maxItemDropPercent = maxItemDropPercent
        self.duplicateMinItems = duplicateMinItems
    }

    /// The median of tonight's price over current's, for items both hold (a sample of them).
    static func medianRatio(tonight: [(aptcode: String, cents: Int64)], current: [String: Int64]) -> (ratio: Double, items: Int)? {
        var ratios: [Double] = []
        for (aptcode, cents) in tonight {
            guard let old = current[aptcode], old > 0, cents > 0 else { continue }
            ratios.append(Double(cents) / Double(old))
        }
        guard !ratios.isEmpty else { return nil }
        ratios.sort()
        let middle = ratios.count / 2
        let median = ratios.count % 2 == 1 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2
        return (median, ratios.count)
    }

    /// A failed check: the reason it rejects with and what to tell the operator.
    struct Problem {
        var reason: RejectReason
        var message: String
    }
}

/// How one check went over the run: how many pharmacies it judged, which it
/// failed (and whether --force loaded them anyway), and the closest pass.
public struct CheckSummary: Sendable, Equatable, Codable {
    public var check: String
    public var limit: String
    public var evaluated = 0
    public var failed: [String] = []
    public var forced = false
    /// The passing pharmacy nearest the limit, and its margin, for the report and metrics.
    @NullEncoded public var closest: String?
    @NullEncoded public var margin: Double?

    enum CodingKeys: String, CodingKey {
        case check, limit, evaluated, failed, forced, closest, margin
    }

    mutating func passed(_ subject: String, margin value: Double, describe: String) {
        evaluated += 1
        if margin.map({ value < $0 }) ?? true {
            margin = value
            closest = "\(subject): \(describe)"
        }
    }

    mutating func failed(_ subject: String, forced: Bool) {
        evaluated += 1
        failed.append(subject)
        self.forced = self.forced || forced
    }
}

extension RejectReason {
    public static let priceShift = RejectReason(rawValue: "price_shift")
    public static let itemCountDrop = RejectReason(rawValue: "item_count_drop")
    public static let duplicateStock = RejectReason(rawValue: "duplicate_stock")
}

extension WarningCode {
    public static let allQuantitiesZero = WarningCode(rawValue: "all_quantities_zero")
}
