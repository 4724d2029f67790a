/// `?q=eq`'s offers as a request ranks them (`EquivalentOffers.head`):
/// those that can be on its page, with what each is ranked by.
enum RankedEquivalents {
    /// One sold offer of the group, with what it is ranked by.
    struct Offer: Sendable {
        /// The patient's price at the tier, else the shelf price; per unit of the pack for `packs=any`.
        var rank: Double
        /// The cents `rank` is made from.
        var rankCents: Int64
        /// Units in the pack as the register counts them (`packs=any`); nil otherwise or where it is no number.
        var units: Double?
        var aptcode: String
        var name: String
        var pharmacy: PharmacyDirectory.Index
        var priceCents: Int64
        var patientCents: Int64?
    }
}

/// What `?q=eq` calls "the same medicine" as an item (READ_API.md, Versions 2 and 3).
enum EquivalenceGroup: Hashable, Sendable {
    /// The register's (ATC, strength, form[, pack size]) trimmed and lowercased, an empty field as ""
    /// (it matches only an empty field); three fields for `packs=any`.
    case register([String])
    /// A package the register does not list, or lists without an ATC code: nothing says what it is the same as, so only its own offers.
    case itself(String)

    /// What a request asks the group of: an item, with or without its pack size.
    struct Asked: Hashable, Sendable {
        var aptcode: String
        var anyPack: Bool
    }
}
