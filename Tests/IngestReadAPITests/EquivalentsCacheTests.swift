@testable import IngestReadAPI
import Testing

/// `?q=eq`'s rankings per open snapshot: made once, reused, bounded by
/// the offers held, the least recently used group dropped first.
struct EquivalentsCacheTests {
    struct RankFailed: Error {}

    static func offers(_ count: Int) -> [EquivalentsCache.Offer] {
        (0..<count).map { EquivalentsCache.Offer(rankCents: Int64($0), aptcode: "A\($0)", name: "N", pharmacy: 0, priceCents: Int64($0), patientCents: nil) }
    }

    @Test func aGroupIsRankedOnceAndTheLeastRecentlyUsedGoesFirst() throws {
        let cache = EquivalentsCache(capacity: 10)
        var ranked: [String] = []
        func ask(_ group: String, _ count: Int, tier: Int? = nil) -> Int {
            cache.offers(for: .init(group: [group], tier: tier)) { ranked.append(group + "/\(tier ?? 0)"); return Self.offers(count) }.count
        }
        #expect(ask("a", 4) == 4)
        #expect(ask("a", 99) == 4, "the cached ranking, not a new one")
        #expect(ask("a", 4, tier: 75) == 4, "another tier is another ranking")
        #expect(ask("b", 2) == 2)
        #expect(cache.heldOffers == 10)
        #expect(ask("a", 4) == 4, "a/0 is used again: b and a/75 are older")
        #expect(ask("c", 3) == 3, "over 10: a/75, the least recently used, goes")
        #expect(cache.heldOffers == 9)
        #expect(ask("b", 2) == 2 && ask("a", 4) == 4)
        #expect(ranked == ["a/0", "a/75", "b/0", "c/0"])
        #expect(ask("a", 4, tier: 75) == 4)
        #expect(ranked.last == "a/75", "ranked again after it was dropped")
        #expect(cache.heldOffers <= 10)
        // A group larger than the whole cache is answered, not kept.
        #expect(ask("huge", 11) == 11 && ask("huge", 11) == 11)
        #expect(ranked.suffix(2) == ["huge/0", "huge/0"])
        // A failed ranking is not kept either.
        #expect(throws: RankFailed.self) { try cache.offers(for: .init(group: ["x"], tier: nil)) { throw RankFailed() } }
        #expect(ask("x", 1) == 1)
        #expect(ranked.last == "x/0")
    }
}
