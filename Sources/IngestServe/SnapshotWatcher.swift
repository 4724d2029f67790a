import IngestReadAPI
import Logging
import ServiceLifecycle

/// Follows `current` while the server runs: every `interval` it asks
/// `CurrentSnapshot` to open a newly published version, so that no request
/// pays for the open, and logs what changed.
struct SnapshotWatcher: Service {
    let current: CurrentSnapshot
    let interval: Double
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully {
            do {
                try await Task.sleep(for: .seconds(interval))
            } catch {
                return // cancelled: the server is stopping
            }
            refresh()
        }
    }

    func refresh() {
        switch current.refresh() {
        case .unchanged:
            break
        case .opened(let version):
            logger.info("serving snapshot \(version)", metadata: ["event": "snapshot_opened", "version": "\(version)"])
        case .failed(let version, let reason):
            logger.error("cannot open snapshot \(version), still serving \(current.snapshot?.version ?? "nothing"): \(reason)",
                         metadata: ["event": "snapshot_failed", "version": "\(version)"])
        }
    }
}
