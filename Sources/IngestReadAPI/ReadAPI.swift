import Foundation
import IngestSnapshot

/// The queries of READ_API.md answered from one open snapshot, as the JSON
/// bodies the apps read: each query's own answer is in its type
/// (`Queries/`, listed by `QueryRegistry`); what several share is here, and
/// the SQL is in `SnapshotReader`.
public enum ReadAPI {
    /// This many items for a search without a `limit` (READ_API.md), and pharmacies for `onlyNearest`.
    static let searchLimit = 50
    static let nearestLimit = 10
    /// `onlyNearest=1&limit=N` answers at most this many (READ_API.md, Version 2).
    static let nearestMaximum = 50
    static let nearestGroup = "Nearest"

    /// The JSON body for `query`. A changeset is not answered here (`ChangesetCache`).
    /// `context`: the clock and the service's time zone, for `on`, `oh`, `openNow` and `maxAge` (Version 3).
    public static func answer(_ query: ReadQuery, from snapshot: OpenSnapshot, context: ReadContext = ReadContext()) throws -> Data {
        try query.request.answer(from: snapshot, context: context)
    }

    /// The answer from what `snapshot` keeps in memory, or nil when the file must be read (`ReadAPIQuery.answerFromMemory`).
    public static func answerFromMemory(_ query: ReadQuery, of snapshot: OpenSnapshot, context: ReadContext = ReadContext()) throws -> Data? {
        try query.request.answerFromMemory(of: snapshot, context: context)
    }

    public static func error(_ reason: String) -> Data { encode(ErrorBody(error: reason)) }

    /// `GET /health` (READ_API.md, Version 2): which snapshot is served.
    public static func health(_ snapshot: OpenSnapshot) -> Data {
        encode(Health(version: snapshot.version, schema: snapshot.schema, published: snapshot.createdAt))
    }

    static func encode(_ value: some JSONWritable) -> Data { value.jsonData }

    // MARK: - Shared by the lists of pharmacies

    /// One row to place: its pharmacy's sort key and where the row is.
    /// Plain numbers, so the sort moves a few words per row.
    struct Placement {
        /// Metres from the client; infinity when unknown, so those come last.
        var metres: Double
        var nameRank: Int
        var regionRank: Int
        var row: Int
    }

    /// `rows` by distance (unknown last), then name. Each row's key is one
    /// integer, millimetres above the name rank, sorted as integers: the
    /// comparator over whole entries was 6 % of `q=p`'s CPU. Rows name each
    /// pharmacy once (an answer lists a pharmacy once), so the rank finds
    /// the row again; should one repeat, the entries are compared instead.
    static func placed(_ rows: [(pharmacy: PharmacyDirectory.Index, metres: Double?)], in directory: PharmacyDirectory) -> [Placement] {
        let placements = rows.indices.map { index in
            Placement(metres: rows[index].metres ?? .infinity, nameRank: directory.nameRanks[rows[index].pharmacy],
                      regionRank: directory.regionRanks[rows[index].pharmacy], row: index)
        }
        var byRank = [Int](repeating: -1, count: directory.count)
        let rankBits: UInt64 = 24
        let unknown: UInt64 = 1 << 38 // past any distance on Earth in millimetres (2 × 10^10 < 2^35)
        var keys: [UInt64] = []
        keys.reserveCapacity(placements.count)
        for placement in placements {
            guard byRank[placement.nameRank] < 0, placement.nameRank < 1 << rankBits else {
                return placements.sorted { $0.metres != $1.metres ? $0.metres < $1.metres : $0.nameRank < $1.nameRank }
            }
            byRank[placement.nameRank] = placement.row
            let millimetres = placement.metres.isFinite ? min(UInt64((placement.metres * 1000).rounded()), unknown - 1) : unknown
            keys.append(millimetres << rankBits | UInt64(placement.nameRank))
        }
        keys.sort()
        return keys.map { placements[byRank[Int($0 & (1 << rankBits - 1))]] }
    }

    /// Regions in name order, pharmacies by distance when a position is
    /// given, else by name; or, for `onlyNearest`, the nearest in one group.
    /// A pharmacy without coordinates is never among the nearest and comes
    /// after those with a distance. The page is cut from that order across
    /// groups (READ_API.md, Version 2), and its groups formed from its own
    /// rows. Gives indices into `rows`.
    static func grouped(_ rows: [(pharmacy: PharmacyDirectory.Index, metres: Double?)], in directory: PharmacyDirectory,
                                onlyNearest: Bool, page: ResultPage) -> (groups: [(name: String, rows: [Int])], paging: Paging) {
        let ordered = placed(rows, in: directory)
        if onlyNearest {
            let nearest = ordered.prefix { $0.metres.isFinite }
            let range = page.range(total: nearest.count, defaultLimit: nearestLimit, maximum: nearestMaximum)
            let shown = nearest.dropFirst(range.lowerBound).prefix(range.count).map(\.row)
            return (shown.isEmpty ? [] : [(nearestGroup, Array(shown))], Paging(total: nearest.count, shown: range))
        }
        // Stable by region: within a region the distance (or name) order stays.
        var members = [[Int]](repeating: [], count: directory.regions.count)
        for placement in ordered { members[placement.regionRank].append(placement.row) }
        let range = page.range(total: rows.count, defaultLimit: nil)
        var groups: [(name: String, rows: [Int])] = []
        var position = 0
        for (region, rows) in zip(directory.regions, members) where !rows.isEmpty {
            let kept = rows.indices.filter { range.contains(position + $0) }.map { rows[$0] }
            position += rows.count
            if !kept.isEmpty { groups.append((region, kept)) }
        }
        return (groups, Paging(total: rows.count, shown: range))
    }

}
