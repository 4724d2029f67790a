import Synchronization

/// Work an answer needs that is the same for every client, kept per open
/// snapshot: a published snapshot never changes, so the work is done once
/// and reused until `current` moves on and the snapshot, with its caches,
/// is dropped. `?q=eq` keeps each group's ranking here, `?q=ip` each item's
/// offers written out (`ItemOffers`).
///
/// Bounded by what it holds, in units of the caller's choosing (offers,
/// bytes), not by entries: a value's size varies from nothing to thousands
/// of rows. A value that costs nothing (an unknown item, a group nobody
/// sells) is not kept, so asking for keys that find nothing cannot fill it
/// with entries. The least recently used entry goes first. Two requests that miss the same key at once both make it (no
/// single flight): the work is one query, and the reader pool bounds how
/// many run.
final class SnapshotAnswerCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var value: Value
        var cost: Int
        var lastUse: UInt64
    }

    /// `order` holds each entry's key under its last use (a tick of
    /// `clock`), so the least recently used is the smallest tick present:
    /// `oldest` only moves up, and eviction costs no scan of the entries
    /// (a scan copied every entry under the lock, 14 % of `q=ip`'s CPU when
    /// most requests missed).
    private struct State {
        var entries: [Key: Entry] = [:]
        var order: [UInt64: Key] = [:]
        var oldest: UInt64 = 0
        var held = 0
        var clock: UInt64 = 0

        mutating func use(_ key: Key, _ entry: inout Entry) {
            clock += 1
            order[entry.lastUse] = nil
            entry.lastUse = clock
            order[clock] = key
        }
    }

    private let state = Mutex(State())
    /// Units held at most, over all entries.
    let capacity: Int
    private let cost: @Sendable (Value) -> Int

    init(capacity: Int, cost: @escaping @Sendable (Value) -> Int) {
        self.capacity = capacity
        self.cost = cost
    }

    /// The key's value when it is kept, counted as a use; nil otherwise.
    func cachedValue(for key: Key) -> Value? {
        state.withLock { state -> Value? in
            guard var entry = state.entries[key] else { return nil }
            state.use(key, &entry)
            state.entries[key] = entry
            return entry.value
        }
    }

    /// The key's value, from the cache or made by `make` (outside the lock).
    /// A value larger than the whole cache, or costing nothing, is returned
    /// and not kept; a failure is thrown and not kept.
    func value(for key: Key, make: () throws -> Value) rethrows -> Value {
        if let cached = cachedValue(for: key) { return cached }
        let value = try make()
        let units = cost(value)
        guard units > 0, units <= capacity else { return value }
        state.withLock { state in
            var entry = Entry(value: value, cost: units, lastUse: 0)
            if let previous = state.entries[key] {
                // Another request made it meanwhile: this one replaces it.
                entry.lastUse = previous.lastUse
                state.held -= previous.cost
            }
            state.use(key, &entry)
            state.entries[key] = entry
            state.held += units
            while state.held > capacity {
                while state.order[state.oldest] == nil { state.oldest += 1 }
                guard let oldest = state.order.removeValue(forKey: state.oldest), let dropped = state.entries.removeValue(forKey: oldest) else { break }
                state.held -= dropped.cost
            }
        }
        return value
    }

    /// Units held now, for tests.
    var held: Int { state.withLock { $0.held } }
}
