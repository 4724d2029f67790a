@testable import IngestReadAPI
import IngestTestSupport
import Testing

/// What an open snapshot keeps for its answers (`?q=eq`'s groups, `?q=ip`'s offers):
/// made once, reused, bounded by the units held, the least recently used
/// entry dropped first.
struct SnapshotAnswerCacheTests {
    struct RankFailed: Error {}

    @Test func aGroupIsRankedOnceAndTheLeastRecentlyUsedGoesFirst() throws {
        let cache = SnapshotAnswerCache<String, [Int]>(capacity: 10) { $0.count }
        var ranked: [String] = []
        func ask(_ group: String, _ count: Int, tier: Int? = nil) -> Int {
            cache.value(for: group + "/\(tier ?? 0)") { ranked.append(group + "/\(tier ?? 0)"); return Array(0..<count) }.count
        }
        #expect(ask("a", 4) == 4)
        #expect(ask("a", 99) == 4, "the cached ranking, not a new one")
        #expect(ask("a", 4, tier: 75) == 4, "another tier is another ranking")
        #expect(ask("b", 2) == 2)
        #expect(cache.held == 10)
        #expect(ask("a", 4) == 4, "a/0 is used again: b and a/75 are older")
        #expect(ask("c", 3) == 3, "over 10: a/75, the least recently used, goes")
        #expect(cache.held == 9)
        #expect(ask("b", 2) == 2 && ask("a", 4) == 4)
        #expect(ranked == ["a/0", "a/75", "b/0", "c/0"])
        #expect(ask("a", 4, tier: 75) == 4)
        #expect(ranked.last == "a/75", "ranked again after it was dropped")
        #expect(cache.held <= 10)
        // A group larger than the whole cache is answered, not kept.
        #expect(ask("huge", 11) == 11 && ask("huge", 11) == 11)
        #expect(ranked.suffix(2) == ["huge/0", "huge/0"])
        // A failed ranking is not kept either.
        #expect(throws: RankFailed.self) { try cache.value(for: "x/0") { throw RankFailed() } }
        #expect(ask("x", 1) == 1)
        #expect(ranked.last == "x/0")
        // Nor is a value that costs nothing: a group nobody sells is asked again.
        let before = cache.held
        #expect(ask("unsold", 0) == 0 && ask("unsold", 0) == 0)
        #expect(ranked.suffix(2) == ["unsold/0", "unsold/0"])
        #expect(cache.held == before)
    }

    /// Against a plain model of least-recently-used eviction (a list in
    /// order of use, scanned): over 20,000 random requests of 60 keys with
    /// random costs, the cache makes a value exactly when the model has
    /// dropped it, and holds what the model holds.
    @Test func evictionFollowsTheLeastRecentlyUsedModel() {
        let capacity = 100
        let cache = SnapshotAnswerCache<Int, Int>(capacity: capacity) { $0 }
        var model: [(key: Int, cost: Int)] = [] // least recently used first
        var random = TestRandom(defaultSeed: 55)
        for step in 0..<20_000 {
            let key = Int.random(in: 0..<60, using: &random)
            let cost = key % 7 == 0 ? 0 : (key * 37) % 45 + 1 // some cost nothing, none more than the capacity
            var made = false
            #expect(cache.value(for: key) { made = true; return cost } == cost)
            let index = model.firstIndex { $0.key == key }
            #expect(made == (index == nil), "step \(step): key \(key), \(random.replay)")
            if let index { model.remove(at: index) }
            if cost > 0 { model.append((key, cost)) }
            while model.map(\.cost).reduce(0, +) > capacity { model.removeFirst() }
            #expect(cache.held == model.map(\.cost).reduce(0, +), "step \(step)")
        }
    }
}
