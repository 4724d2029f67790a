import IngestCore

/// Checks that catch a feed that is well-formed and wrong (issue 22), each
/// against that pharmacy's data in `current`: prices shifted by a factor (a
/// kroon export labelled EUR, a decimal-point slip), an item count that
/// collapses, stock all zero; and, across tonight's feeds, two pharmacies
/// with the same item lines (another branch's stock under a pharmacy's id).
/// A failed check rejects the feed, which then carries over like any other
/// rejected feed; `--force` loads it anyway and the manifest says so.
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

    /// Factors a whole feed's prices move by when something upstream is wrong, with the likely cause.
    static let knownFactors: [(factor: Double, label: String, cause: String)] = [
        (15.6466, "15.6466", "prices in Estonian kroons labelled EUR (15.6466 EEK = 1 EUR)"),
        (1 / 15.6466, "1/15.6466", "prices in euro converted from kroons twice"),
        (100, "100", "a decimal-point slip: prices in cents read as euro"),
        (0.01, "0.01", "a decimal-point slip: prices in euro read as cents"),
        (3.4528, "3.4528", "prices in Lithuanian litas labelled EUR (3.4528 LTL = 1 EUR)"),
        (1 / 0.702804, "1/0.702804", "prices in euro labelled as Latvian lats"),
    ]

    /// The cause whose factor lies within 5 % of `ratio`.
    static func likelyCause(of ratio: Double) -> String? {
        knownFactors.first { abs(ratio / $0.factor - 1) <= 0.05 }.map { "near \($0.label): \($0.cause)" }
    }

    static func format(_ value: Double) -> String {
        value >= 10 ? String(format: "%.4g", value) : String(format: "%.4f", value).replacingOccurrences(of: #"0+$"#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #"\.$"#, with: "", options: .regularExpression)
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

    /// The price check, and how far inside the band a passing ratio stays (a factor ≥ 1; 1 is on the edge).
    func priceShift(ratio: Double, items: Int) -> (problem: Problem?, margin: Double) {
        let low = 1 / maxPriceRatio
        let margin = min(ratio / low, maxPriceRatio / ratio)
        guard ratio < low || ratio > maxPriceRatio else { return (nil, margin) }
        let cause = Self.likelyCause(of: ratio).map { "; \($0)?" } ?? ""
        return (Problem(reason: .priceShift,
                        message: "median price ratio \(Self.format(ratio)) against current over \(items) items sold both nights, outside \(Self.format(low))–\(Self.format(maxPriceRatio))\(cause)"),
                margin)
    }

    /// The item count check, and how many percentage points a passing fall stays under the limit.
    func itemCountDrop(current: Int, tonight: Int) -> (problem: Problem?, margin: Double) {
        guard current > 0 else { return (nil, Double(maxItemDropPercent)) }
        let fall = max(0, Double(current - tonight) * 100 / Double(current))
        let margin = Double(maxItemDropPercent) - fall
        guard fall > Double(maxItemDropPercent) else { return (nil, margin) }
        return (Problem(reason: .itemCountDrop,
                        message: "item count fell from \(current) to \(tonight) (\(String(format: "%.1f", fall)) %), over the \(maxItemDropPercent) % allowed"),
                margin)
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
