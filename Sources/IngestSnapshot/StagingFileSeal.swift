import IngestCore
import Foundation
import Synchronization

/// The finished staging file made durable and measured on a thread of its
/// own: fsync, size and SHA-256 only read the file, so they can run while
/// the publisher's integrity check reads it too, and the two cores share
/// the last seconds of a run instead of one of them idling.
final class StagingFileSeal: Sendable {
    struct Sealed: Sendable {
        var size: Int64
        var sha256: String
    }

    private let done = DispatchSemaphore(value: 0)
    /// Written once by the sealing thread before it signals `done`.
    private let outcome = Mutex<Result<Sealed, any Error>>(.failure(CancellationError()))

    init(path: String) {
        let thread = Thread { [self] in
            let sealed = Result<Sealed, any Error> {
                try DurableFile.fsync(path: path)
                var info = stat()
                guard stat(path, &info) == 0 else { throw POSIXFailure(operation: "stat", path: path) }
                return Sealed(size: Int64(info.st_size), sha256: try FileDigest.sha256(path: path))
            }
            outcome.withLock { $0 = sealed }
            done.signal()
        }
        thread.name = "ingest-seal"
        thread.start()
    }

    /// Blocks until the file is synced and digested; rethrows what failed.
    func wait() throws -> Sealed {
        done.wait()
        return try outcome.withLock { $0 }.get()
    }
}
