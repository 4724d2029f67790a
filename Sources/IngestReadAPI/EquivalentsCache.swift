import Synchronization

/// The sold offers of one equivalence group ranked at one tier, kept per
/// open snapshot: the ranking is the same for every client (only the
/// distance, a tie-break, depends on who asks), and a published snapshot
/// never changes, so it is made once and reused until `current` moves on
/// and the snapshot, with this cache, is dropped.
///
/// Ranking a group read all its offers (1,500 for a medicine with three
/// packages at 500 pharmacies) on every request: 0.7 ms of CPU each, p99
/// 16 ms under wrk at 16 connections (`make bench-serve`). From here a
/// request finds the cut with a binary search and sorts only the offers at
/// or above it.
///
/// Bounded by the offers it holds, not by entries: a group's size varies
/// from one offer to thousands. The least recently used group goes first.
/// Two requests that miss the same group at once both rank it (no single
/// flight): the work is one query, and the pool bounds how many run.
final class EquivalentsCache: Sendable {
    struct Key: Hashable, Sendable {
        /// The register's (ATC, strength, form, pack size), trimmed and lowercased.
        var group: [String]
        var tier: Int?
    }

    /// One sold offer of the group, with what it is ranked by.
    struct Offer: Sendable {
        var rankCents: Int64
        var aptcode: String
        var name: String
        var pharmacy: PharmacyDirectory.Index
        var priceCents: Int64
        var patientCents: Int64?
    }

    private struct Entry {
        var offers: [Offer]
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var held = 0
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())
    /// Offers held at most, over all groups (about 100 bytes each with their share of the strings).
    let capacity: Int

    init(capacity: Int = 200_000) {
        self.capacity = capacity
    }

    /// The group's offers by rank, from the cache or made by `rank` (outside the lock).
    func offers(for key: Key, rank: () throws -> [Offer]) rethrows -> [Offer] {
        let cached = state.withLock { state -> [Offer]? in
            state.clock += 1
            guard var entry = state.entries[key] else { return nil }
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry.offers
        }
        if let cached { return cached }
        let offers = try rank()
        guard offers.count <= capacity else { return offers }
        state.withLock { state in
            state.clock += 1
            if let previous = state.entries.updateValue(Entry(offers: offers, lastUse: state.clock), forKey: key) {
                state.held -= previous.offers.count
            }
            state.held += offers.count
            while state.held > capacity, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.held -= oldest.value.offers.count
                state.entries[oldest.key] = nil
            }
        }
        return offers
    }

    /// Offers held now, for tests.
    var heldOffers: Int { state.withLock { $0.held } }
}
