/// Rows as the writer takes them: already validated and normalised by the
/// pipeline, so the writer only binds and steps.
public struct OfferRow: Sendable {
    public var aptcode: String
    public var priceCents: Int64
    /// Export time of the feed that first showed `priceCents` (SNAPSHOT.md
    /// "Price history"); the writer's NOT NULL refuses an offer without one.
    public var priceSince: String?
    /// nil where the feed reports no stock levels (a price list).
    public var quantity: Int64?
    public var limitPriceCents: Int64?
    public var price50Cents: Int64?
    public var price75Cents: Int64?
    public var price90Cents: Int64?
    public var price100Cents: Int64?

    public init(aptcode: String, priceCents: Int64, priceSince: String? = nil, quantity: Int64?, limitPriceCents: Int64? = nil,
                price50Cents: Int64? = nil, price75Cents: Int64? = nil, price90Cents: Int64? = nil, price100Cents: Int64? = nil) {
        self.aptcode = aptcode
        self.priceCents = priceCents
        self.priceSince = priceSince
        self.quantity = quantity
        self.limitPriceCents = limitPriceCents
        self.price50Cents = price50Cents
        self.price75Cents = price75Cents
        self.price90Cents = price90Cents
        self.price100Cents = price100Cents
    }
}

public struct ItemRow: Sendable, Hashable {
    public var aptcode: String
    public var packageCode: String?
    public var gtin: String?
    public var name: String
    public var producer: String?
    public var atc: String?
    public var activeSubstance: String?
    public var infoURL: String?
    public var imageURL: String?

    public init(aptcode: String, packageCode: String?, gtin: String?, name: String, producer: String?,
                atc: String?, activeSubstance: String?, infoURL: String? = nil, imageURL: String? = nil) {
        self.aptcode = aptcode
        self.packageCode = packageCode
        self.gtin = gtin
        self.name = name
        self.producer = producer
        self.atc = atc
        self.activeSubstance = activeSubstance
        self.infoURL = infoURL
        self.imageURL = imageURL
    }
}

public struct PharmacyRow: Sendable, Hashable {
    public var id: String
    public var name: String
    public var chainID: String?
    public var region: String?
    public var address: String?
    public var phone: String?
    public var openHours: String?
    public var latitude: Double?
    public var longitude: Double?
    public var lastRefresh: String
    public var itemCount: Int
    public var stale: Bool
    /// The run time (`--as-of`) at which these offers were last loaded from
    /// a feed: how long a pharmacy has gone without one is counted from it.
    public var loadedAt: String?

    public init(id: String, name: String, chainID: String?, region: String?, address: String?, phone: String?,
                openHours: String?, latitude: Double?, longitude: Double?, lastRefresh: String, itemCount: Int, stale: Bool,
                loadedAt: String? = nil) {
        self.loadedAt = loadedAt
        self.id = id
        self.name = name
        self.chainID = chainID
        self.region = region
        self.address = address
        self.phone = phone
        self.openHours = openHours
        self.latitude = latitude
        self.longitude = longitude
        self.lastRefresh = lastRefresh
        self.itemCount = itemCount
        self.stale = stale
    }
}
