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

    /// Every stock record needs these.
    static let required: [CanonicalField] = [.aptcode, .name, .price, .quantity]
}
