/// One canonical stock record: an item a pharmacy holds, at a shelf price in
/// euro cents. Every stock adapter produces these, whatever its format.
public struct StockOffer: Sendable, Hashable {
    /// The pharmacy system's item code, trimmed and upper-case.
    public var aptcode: String
    /// 7 digits, check digit verified; nil when the item is not a medicine.
    public var packageCode: String?
    /// 14 digits, check digit verified.
    public var gtin: String?
    public var name: String
    public var producer: String?
    /// Upper-case.
    public var atc: String?
    public var activeSubstance: String?
    /// Shelf price including VAT, euro cents.
    public var priceCents: Int64
    /// Units in stock; nil where the feed reports no stock levels (a
    /// sister site's price list), never a made-up number.
    public var quantity: Int64?
    /// Line (or element index) in the feed, for messages.
    public var line: Int

    public init(
        aptcode: String, packageCode: String? = nil, gtin: String? = nil, name: String,
        producer: String? = nil, atc: String? = nil, activeSubstance: String? = nil,
        priceCents: Int64, quantity: Int64?, line: Int
    ) {
        self.aptcode = aptcode
        self.packageCode = packageCode
        self.gtin = gtin
        self.name = name
        self.producer = producer
        self.atc = atc
        self.activeSubstance = activeSubstance
        self.priceCents = priceCents
        self.quantity = quantity
        self.line = line
    }
}
