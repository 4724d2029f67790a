import Foundation
import IngestSnapshot

/// One published snapshot opened for reading: its version, what every
/// request needs in memory (the few hundred pharmacies, the legend: a
/// published file never changes, so they are read once), and a pool of
/// read-only connections lent to one request at a time.
///
/// When `current` moves on, `CurrentSnapshot` drops its reference: requests
/// still holding this one finish on it, and the connections close with the
/// last of them (a pruned file stays readable while open).
public final class OpenSnapshot: @unchecked Sendable {
    /// A file that is not a snapshot this server can read.
    public struct NotASnapshot: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path) is not a snapshot this server reads: \(reason)" }
    }

    public let version: String
    public let path: String
    /// When it was published (`meta.created_at`), for `/health`.
    public let createdAt: String
    let pharmacies: PharmacyDirectory
    let legend: [(code: String, text: String)]

    // Guarded by `lock`: the idle connections. Immutable state above needs no lock.
    private let lock = NSLock()
    private var idle: [SnapshotReader] = []

    public init(path: String, version: String) throws {
        let reader = try SnapshotReader(path: path)
        let application = try reader.database.scalarInt("PRAGMA application_id")
        let schema = try reader.database.scalarInt("PRAGMA user_version")
        guard application == Int64(SnapshotSchema.applicationID) else {
            throw NotASnapshot(path: path, reason: "application_id \(application ?? 0), not \(SnapshotSchema.applicationID)")
        }
        guard schema == Int64(SnapshotSchema.version) else {
            throw NotASnapshot(path: path, reason: "schema version \(schema ?? 0), this server reads \(SnapshotSchema.version)")
        }
        self.path = path
        self.version = version
        createdAt = try reader.database.strings("SELECT value FROM meta WHERE key = 'created_at'").first ?? ""
        pharmacies = PharmacyDirectory(try reader.pharmacies())
        legend = try reader.legend()
        idle = [reader]
    }

    /// Runs `body` with a connection of this snapshot's own.
    func withReader<T>(_ body: (SnapshotReader) throws -> T) throws -> T {
        let reader = try lock.withLock { idle.popLast() } ?? SnapshotReader(path: path)
        defer { lock.withLock { idle.append(reader) } }
        return try body(reader)
    }
}
