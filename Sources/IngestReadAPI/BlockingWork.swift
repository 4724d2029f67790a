/// Where blocking work runs: SQLite reads and changeset builds never run on
/// the threads that serve connections or on Swift's few cooperative
/// threads (two on this machine), where one 12 s changeset build stalled
/// every other query. `ingest-serve` hands them to NIO thread pools, as
/// Hummingbird's file middleware does with file reads.
public protocol BlockingWork: Sendable {
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T
}

/// Runs the work on the calling task's thread: for tests and tools where
/// nothing else waits for that thread.
public struct InlineWork: BlockingWork {
    public init() {}

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T { try work() }
}
