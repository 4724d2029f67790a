/// The fields a mapping may fill, by their canonical names (`[columns]`
/// keys): a stock record's (FEEDS.md §3), and for `kind = "registry"` and
/// `kind = "register"` a registry row's (§5) and a register row's (§11).
/// One list, so every reader fills any kind's fields the same way.
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
    // The pharmacy registry's (FEEDS.md §5).
    case id
    case chainID = "chain_id"
    case region
    case address
    case phone
    case openHours = "open_hours"
    case latitude
    case longitude
    // The medicine register's (FEEDS.md §11).
    case form
    case strength
    case packSize = "pack_size"
    case leafletURL = "leaflet_url"
    case spcURL = "spc_url"
    case prescription

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
        case .id: return 14
        case .chainID: return 15
        case .region: return 16
        case .address: return 17
        case .phone: return 18
        case .openHours: return 19
        case .latitude: return 20
        case .longitude: return 21
        case .form: return 22
        case .strength: return 23
        case .packSize: return 24
        case .leafletURL: return 25
        case .spcURL: return 26
        case .prescription: return 27
        }
    }

    /// Every stock record needs these.
    /// `quantity` may be left out: a price list without stock levels (FEEDS.md §3).
    static let required: [CanonicalField] = [.aptcode, .name, .price]
}

/// What a mapping file describes (its top-level `kind`).
public enum MappingKind: String, Sendable, CaseIterable {
    case stock
    case registry
    case register

    /// The `[columns]` keys of this kind.
    public var fields: [CanonicalField] {
        switch self {
        case .stock: [.pharmacyID, .pharmacyName, .aptcode, .packageCode, .gtin, .name, .producer, .atc, .activeSubstance,
                      .price, .quantity, .exportedAt, .currency, .vatRate]
        case .registry: [.id, .name, .chainID, .region, .address, .phone, .openHours, .latitude, .longitude]
        case .register: [.packageCode, .name, .form, .strength, .packSize, .atc, .activeSubstance, .leafletURL, .spcURL,
                         .prescription, .exportedAt]
        }
    }

    /// The fields a mapping of this kind must map.
    var required: [CanonicalField] {
        switch self {
        case .stock: CanonicalField.required
        case .registry: [.id, .name, .latitude, .longitude]
        // FEEDS.md §12.1: a register record cannot do without its code and name; the rest may be unknown (NULL).
        case .register: [.packageCode, .name]
        }
    }
}
