import Foundation
import IngestSnapshot
import Synchronization

/// The snapshot `current` points at, kept open; `refresh()` follows the
/// link when a new version is published. The new file is opened and read
/// before it replaces the old one, so a request is always answered from a
/// complete snapshot, old or new; a new file that cannot be opened leaves
/// the old one serving. It is not tried again: a published file never
/// changes, so the next version to open is the next one published.
public final class CurrentSnapshot: Sendable {
    public let directory: SnapshotDirectory
    private let state = Mutex<(open: OpenSnapshot?, failedVersion: String?)>((nil, nil))

    public init(directory: SnapshotDirectory) {
        self.directory = directory
    }

    /// The snapshot to answer from; nil before any could be opened.
    public var snapshot: OpenSnapshot? { state.withLock { $0.open } }

    /// What a refresh did.
    public enum Change: Equatable, Sendable {
        case unchanged
        case opened(String)
        /// The version `current` names could not be opened; the one before keeps serving.
        case failed(version: String, reason: String)
    }

    /// Opens the version `current` names if it is not the one open. Only
    /// one refresh runs at a time (the watcher's); readers never wait for
    /// the open, only for the swap of one reference.
    @discardableResult
    public func refresh() -> Change {
        guard let version = directory.currentVersion() else { return .unchanged }
        let (openVersion, failed) = state.withLock { ($0.open?.version, $0.failedVersion) }
        guard version != openVersion, version != failed else { return .unchanged }
        do {
            let snapshot = try OpenSnapshot(path: directory.snapshotPath(version), version: version)
            state.withLock { $0 = (snapshot, nil) }
            return .opened(version)
        } catch {
            state.withLock { $0.failedVersion = version }
            return .failed(version: version, reason: "\(error)")
        }
    }
}
