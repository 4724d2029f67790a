import Glibc
import IngestReadAPI
import NIOPosix

/// `BlockingWork` on a NIO thread pool: the answers' SQLite reads run on
/// one, the changeset builds on another, so a build of many seconds never
/// holds a thread a query needs.
///
/// `background` lowers the threads' scheduling priority (nice 10): on two
/// cores a changeset build took a core from the queries and `q=ip`'s p99
/// rose from 9.9 to 14.9 ms under wrk (`make bench-serve`). At nice 19 it
/// was 10.2 ms, but a build starved on a machine kept busy (a compiler at
/// nice 0 beside it: a client waited over 30 s); nice 10 still gives the
/// build about a tenth of a busy core, so it always ends.
struct ThreadPoolWork: BlockingWork {
    let pool: NIOThreadPool
    var background = false

    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let background = background
        return try await pool.runIfActive {
            if background {
                // Linux keeps a nice value per thread, and who = 0 is the calling one. Failing leaves the priority as it was, which is only slower.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            }
            return try work()
        }
    }
}
