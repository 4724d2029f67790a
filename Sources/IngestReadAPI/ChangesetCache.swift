import Foundation
import IngestSnapshot

/// `?q=changes&since=VERSION`: the changeset from a client's version to
/// current (`SnapshotChangeset`), made once per pair and kept for the
/// clients that follow (a night's changeset takes seconds to make on the
/// national snapshot and every client on yesterday's version asks for the
/// same one).
public final class ChangesetCache: @unchecked Sendable {
    public enum Answer: Equatable {
        case changeset(Data)
        /// The client is on current already: nothing to apply.
        case upToDate
        /// The client's version is no longer kept (or never was): it downloads the whole snapshot.
        case gone(String)
    }

    private let directory: SnapshotDirectory
    private let capacity: Int
    // Guarded by `lock`; held while a changeset is made, so concurrent
    // requests for the same pair wait for one diff instead of running many.
    private let lock = NSLock()
    private var cached: [(from: String, to: String, data: Data)] = []

    public init(directory: SnapshotDirectory, capacity: Int = 4) {
        self.directory = directory
        self.capacity = capacity
    }

    public func answer(since version: String, current: OpenSnapshot) throws -> Answer {
        if version == current.version { return .upToDate }
        // Only a listed version names a file: `since` never becomes a path of the client's making.
        guard directory.versions().contains(version) else {
            return .gone("version \(version) is not kept here (current is \(current.version)): download the whole snapshot")
        }
        return try lock.withLock {
            if let hit = cached.first(where: { $0.from == version && $0.to == current.version }) { return .changeset(hit.data) }
            let data: Data
            do {
                data = try SnapshotChangeset.make(from: directory.snapshotPath(version), to: current.path)
            } catch let mismatch as SnapshotChangeset.SchemaMismatch {
                return .gone("\(mismatch)")
            }
            cached.append((version, current.version, data))
            if cached.count > capacity { cached.removeFirst() }
            return .changeset(data)
        }
    }
}
