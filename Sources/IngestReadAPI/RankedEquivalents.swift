/// `?q=eq`'s rankings as `OpenSnapshot` keeps them: the sold offers of one
/// equivalence group ranked at one tier. The ranking is the same for every
/// client (only the distance, a tie-break, depends on who asks).
///
/// Ranking a group read all its offers (1,500 for a medicine with three
/// packages at 500 pharmacies) on every request: 0.7 ms of CPU each, p99
/// 16 ms under wrk at 16 connections (`make bench-serve`). From here a
/// request finds the cut with a binary search and sorts only the offers at
/// or above it (`EquivalentsFinder`).
enum RankedEquivalents {
    struct Key: Hashable, Sendable {
        var group: EquivalenceGroup
        var tier: Int?
    }

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

    /// 200,000 offers at most (about 100 bytes each with their share of the strings).
    static func cache(capacity: Int = 200_000) -> SnapshotAnswerCache<Key, [Offer]> {
        SnapshotAnswerCache(capacity: capacity) { $0.count }
    }
}

/// What `?q=eq` calls "the same medicine" as an item (READ_API.md, Versions 2 and 3).
enum EquivalenceGroup: Hashable, Sendable {
    /// The register's (ATC, strength, form[, pack size]) trimmed and lowercased, an empty field as ""
    /// (it matches only an empty field); three fields for `packs=any`.
    case register([String])
    /// A package the register does not list, or lists without an ATC code: nothing says what it is the same as, so only its own offers.
    case itself(String)
}
