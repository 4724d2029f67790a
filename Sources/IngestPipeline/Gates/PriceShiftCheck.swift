import Foundation

/// A pharmacy's prices may move against current by at most a factor, as a
/// median over items sold both nights (`price_shift`, `--max-price-ratio`):
/// a kroon export labelled EUR or a decimal-point slip moves every price by
/// the same factor, which is named when it is a known one. 0 switches it off.
public struct PriceShiftCheck: Gate {
    public let maxRatio: Double
    /// Fewer items in common than this give no verdict.
    public let minCommonItems: Int
    public var name: String { "price_shift" }
    public var scope: GateScope { .pharmacy }
    public var limit: String { maxRatio > 0 ? "\(Self.format(1 / maxRatio))–\(Self.format(maxRatio))" : "off" }

    public init(maxRatio: Double, minCommonItems: Int = 5) {
        self.maxRatio = maxRatio
        self.minCommonItems = minCommonItems
    }

    public func judge(_ evidence: GateEvidence) -> GateVerdict? {
        guard case .pharmacy(let feed) = evidence, maxRatio > 0, let (ratio, items) = feed.priceRatio, items >= minCommonItems else { return nil }
        let low = 1 / maxRatio
        let margin = min(ratio / low, maxRatio / ratio)
        let passed = ratio >= low && ratio <= maxRatio
        let cause = Self.likelyCause(of: ratio).map { "; \($0)?" } ?? ""
        return GateVerdict(passed: passed, limitValue: maxRatio, margin: margin, measured: "median ratio \(Self.format(ratio))",
                           message: "median price ratio \(Self.format(ratio)) against current over \(items) items sold both nights, outside \(Self.format(low))–\(Self.format(maxRatio))\(cause)")
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
}
