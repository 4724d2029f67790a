import Foundation
import IngestReadAPI
import Logging
import ServiceLifecycle

/// Follows `current` while the server runs: every `interval` it asks
/// `CurrentSnapshot` to open a newly published version, so that no request
/// pays for the open, and logs what changed. When a new version replaces
/// one, it starts the changeset between the two at once (on the cache's
/// own thread): every client on yesterday's version asks for that one, and
/// making it takes seconds on the national snapshot (12–14 s,
/// docs/SNAPSHOTS.md); clients who ask meanwhile wait for the same build.
struct SnapshotWatcher: Service {
    let current: CurrentSnapshot
    let changesets: ChangesetCache
    /// Where a new version is opened (SQLite, off Swift's cooperative threads).
    let work: any BlockingWork
    let interval: Double
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully {
            do {
                try await Task.sleep(for: .seconds(interval))
            } catch {
                return // cancelled: the server is stopping
            }
            await refresh()
        }
    }

    func refresh() async {
        let previous = current.snapshot?.version
        let current = current
        let change: CurrentSnapshot.Change
        do { change = try await work.run { current.refresh() } } catch {
            logger.error("cannot look for a new snapshot: \(error)", metadata: ["event": "snapshot_failed"])
            return
        }
        switch change {
        case .unchanged:
            break
        case .opened(let version):
            logger.info("serving snapshot \(version)", metadata: ["event": "snapshot_opened", "version": "\(version)"])
            if let previous, let snapshot = current.snapshot { prepareChangeset(since: previous, to: snapshot) }
        case .failed(let version, let reason):
            logger.error("cannot open snapshot \(version), still serving \(current.snapshot?.version ?? "nothing"): \(reason)",
                         metadata: ["event": "snapshot_failed", "version": "\(version)"])
        }
    }

    private func prepareChangeset(since previous: String, to snapshot: OpenSnapshot) {
        let (changesets, logger) = (changesets, logger)
        Task {
            do {
                if case .changeset(let file) = try await changesets.answer(since: previous, current: snapshot) {
                    logger.info("changeset \(previous) → \(snapshot.version) ready: \(file.size) bytes",
                                metadata: ["event": "changeset_ready", "from": "\(previous)", "to": "\(snapshot.version)"])
                }
            } catch {
                // A client asking for it gets the same error then, as a 500.
                logger.error("cannot make the changeset \(previous) → \(snapshot.version): \(error)",
                             metadata: ["event": "changeset_failed", "from": "\(previous)", "to": "\(snapshot.version)"])
            }
        }
    }
}
