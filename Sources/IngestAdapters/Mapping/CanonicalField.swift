/// The fields a mapping may fill, by their canonical names (`[columns]` keys).
public enum CanonicalField: String, Sendable, CaseIterable, Hashable {
    case pharmacyID = "pharmacy_id"
    case pharmacyName = "pharmacy_name"
    case aptcode
    case packageCode = "package_code"
    case gtin
    case name
    case producer
    case atc
    case activeSubstance = "active_substance"
    case price
    case quantity
    case exportedAt = "exported_at"
    case currency
    case vatRate = "vat_rate"

    /// This field's index in `allCases`, for arrays indexed by field.
    var position: Int {
        switch self {
        case .pharmacyID: return 0
        case .pharmacyName: return 1
        case .aptcode: return 2
        case .packageCode: return 3
        case .gtin: return 4
        case .name: return 5
        case .producer: return 6
        case .atc: return 7
        case .activeSubstance: return 8
        case .price: return 9
        case .quantity: return 10
        case .exportedAt: return 11
        case .currency: return 12
        case .vatRate: return 13
        }
    }

    /// Every stock record needs these.
    /// `quantity` may be left out: a price list without stock levels (FEEDS.md §3).
    static let required: [CanonicalField] = [.aptcode, .name, .price]
}
