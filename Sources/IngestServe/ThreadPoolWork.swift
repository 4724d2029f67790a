import IngestReadAPI
import NIOPosix

/// `BlockingWork` on a NIO thread pool: the answers' SQLite reads run on
/// one, the changeset builds on another, so a build of many seconds never
/// holds a thread a query needs.
struct ThreadPoolWork: BlockingWork {
    let pool: NIOThreadPool

    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(work)
    }
}
