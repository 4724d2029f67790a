/// The currencies feeds are written in, with the fixed conversion rates of
/// FEEDS.md §3 (units of the currency per one euro).
public enum Currency: String, Sendable, CaseIterable, Codable {
    case eur = "EUR"
    case eek = "EEK"
    case lvl = "LVL"
    case ltl = "LTL"

    /// Fixed by the euro changeovers; never market rates.
    public var unitsPerEuro: ExactDecimal {
        switch self {
        case .eur: return ExactDecimal(units: 1, scale: 0)
        case .eek: return ExactDecimal(units: 156466, scale: 4)
        case .lvl: return ExactDecimal(units: 702804, scale: 6)
        case .ltl: return ExactDecimal(units: 345280, scale: 5)
        }
    }

    /// Accepts the ISO code in any case, surrounding spaces trimmed.
    public init?(code: String) {
        self.init(rawValue: code.trimmed.uppercased())
    }
}

import Foundation
