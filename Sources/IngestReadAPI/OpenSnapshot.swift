import Foundation
import IngestSnapshot
import Synchronization

/// One published snapshot opened for reading: its version, what every
/// request needs in memory (the few hundred pharmacies, the legend: a
/// published file never changes, so they are read once), and a pool of
/// read-only connections lent to one request at a time. The pool is
/// bounded, as GRDB's `Pool` is: past `maximumReaders` requests wait for a
/// connection instead of opening more (each holds SQLite's page cache and a
/// file descriptor).
///
/// When `current` moves on, `CurrentSnapshot` drops its reference: requests
/// still holding this one finish on it, and the connections close with the
/// last of them (a pruned file stays readable while open).
public final class OpenSnapshot: Sendable {
    /// A file that is not a snapshot this server can read.
    public struct NotASnapshot: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path) is not a snapshot this server reads: \(reason)" }
    }

    public let version: String
    public let path: String
    /// Its schema version, one of `readableSchemas`.
    public let schema: Int
    /// When it was published (`meta.created_at`), for `/health`.
    public let createdAt: String
    let pharmacies: PharmacyDirectory
    /// How its prices are written: `meta.currency`'s form (EUR when it names none).
    let prices: PriceFormat
    let legend: [(code: String, text: String)]
    /// The catalogue's words, what a search word with a typo is corrected against.
    let vocabulary: SearchVocabulary
    /// `?q=eq`'s sold offers, packed once per group for this snapshot.
    let equivalents = EquivalentOffers.cache()
    /// `?q=eq`'s group of each item asked for (nil: no such item): with
    /// the group's offers kept too, an answer needs no SQLite connection.
    /// 100,000 items at most, a few dozen bytes each.
    let equivalenceGroups = SnapshotAnswerCache<EquivalenceGroup.Asked, EquivalenceGroup?>(capacity: 100_000) { $0 == nil ? 0 : 1 }
    /// `?q=i`'s ranked items up to a page's end, once per search for this
    /// snapshot: ranking every match of a short word (500 items for `ta` on
    /// the national snapshot) takes four index scans, and the same searches
    /// come again and again. 200,000 items at most.
    let searches = SnapshotAnswerCache<ItemSearchKey, RankedSearch>(capacity: 200_000) { $0.items.count }
    /// `?q=ip`'s offers written out, once per item for this snapshot: 64 MiB
    /// at most, about a thousand items sold everywhere.
    let itemOffers = SnapshotAnswerCache<String, ItemOffers>(capacity: 64 << 20) { $0.bytesHeld }

    /// The idle connections; every other property is immutable.
    private let idle: Mutex<[SendableReader]>
    /// Counts the connections not lent out, opened or not.
    private let available: DispatchSemaphore

    /// One connection as the pool holds it: used by one request at a time.
    private struct SendableReader: @unchecked Sendable {
        let reader: SnapshotReader
    }

    /// The schema versions served: this importer's and the one before, so
    /// that after an upgrade the last night of the older importer keeps
    /// being served until the first night of the new one publishes
    /// (READ_API.md). Fields only the newer schema has answer empty.
    public static let readableSchemas = [Int64(SnapshotSchema.version - 1), Int64(SnapshotSchema.version)]

    /// Connections per snapshot at most: the query threads' number is the most that can be asked at once.
    public static let maximumReaders = 8

    public init(path: String, version: String, maximumReaders: Int = OpenSnapshot.maximumReaders) throws {
        let reader = try SnapshotReader(path: path)
        let application = try reader.database.scalarInt("PRAGMA application_id")
        let schema = try reader.database.scalarInt("PRAGMA user_version")
        guard application == Int64(SnapshotSchema.applicationID) else {
            throw NotASnapshot(path: path, reason: "application_id \(application ?? 0), not \(SnapshotSchema.applicationID)")
        }
        guard let schema, Self.readableSchemas.contains(schema) else {
            throw NotASnapshot(path: path, reason: "schema version \(schema ?? 0), this server reads \(Self.readableSchemas.map(String.init).joined(separator: " and "))")
        }
        self.path = path
        self.version = version
        self.schema = Int(schema)
        createdAt = try reader.database.strings("SELECT value FROM meta WHERE key = 'created_at'").first ?? ""
        prices = PriceFormat(currency: try reader.database.strings("SELECT value FROM meta WHERE key = 'currency'").first ?? "EUR")
        pharmacies = PharmacyDirectory(try reader.pharmacies(), hours: try reader.openingHours())
        legend = try reader.legend()
        vocabulary = try reader.searchVocabulary()
        idle = Mutex([SendableReader(reader: reader)])
        available = DispatchSemaphore(value: max(1, maximumReaders))
    }

    /// Reads what `/health` vouches for: the file's header and, for every
    /// table, its first and last rows (a b-tree's root and both ends), so a
    /// file cut short or written over under a running server answers 503
    /// there, not 200 beside queries that answer 500. A few pages, not a
    /// scan: health is asked every few seconds.
    public func probe() throws {
        try withReader { reader in
            let database = reader.database
            for table in try database.strings("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%'") {
                let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                for order in ["ASC", "DESC"] {
                    // rowid tables by rowid; WITHOUT ROWID ones have none, and their key order is the same walk.
                    let rowid = try database.scalarInt("SELECT count(*) FROM pragma_table_list WHERE name = '\(table.replacingOccurrences(of: "'", with: "''"))' AND wr = 0") ?? 0
                    _ = try database.strings("SELECT * FROM \(quoted)\(rowid > 0 ? " ORDER BY rowid \(order)" : "") LIMIT 1")
                }
            }
        }
    }

    /// Runs `body` with a connection of this snapshot's own, waiting for
    /// one when all are lent out. Blocks: call it from blocking work only.
    func withReader<T>(_ body: (SnapshotReader) throws -> T) throws -> T {
        available.wait()
        defer { available.signal() }
        let reader = try idle.withLock { $0.popLast() } ?? SendableReader(reader: SnapshotReader(path: path))
        defer { idle.withLock { $0.append(reader) } }
        return try body(reader.reader)
    }
}
