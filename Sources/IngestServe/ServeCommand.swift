import ArgumentParser
import Foundation
import IngestCore
import IngestReadAPI
import IngestSnapshot
import Logging
import NIOPosix

/// `ingest-serve`: the reference read API (READ_API.md) over the snapshot
/// `current` names, a binary of its own so the importer does not carry a
/// web server.
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest-serve",
        abstract: "Answer READ_API.md's queries from the current snapshot, read-only.",
        discussion: """
            GET /?q=p|i|ip|id|a answers the apps' five queries; GET /?q=changes&since=VERSION gives the changeset \
            from VERSION to current (410 when VERSION is no longer kept); GET /openapi.json describes it all. \
            A newly published current is picked up without a restart; requests in flight finish on the old one. \
            GET /health says which snapshot is served (503 before any is published).
            """,
        version: "\(IngestVersion.current) (commit \(BuildInfo.commit))")

    @Option(name: .long, help: ArgumentHelp("The snapshots directory (where `current` is).", valueName: "dir"))
    var snapshots = "var/snapshots"

    @Option(name: .long, help: "Address to listen on; loopback unless told otherwise.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on (0: any free port, printed when listening).")
    var port = 8080

    @Option(name: .long, help: ArgumentHelp("How often to look for a new current.", valueName: "seconds"))
    var reloadInterval = 0.25

    /// One by default, measured: on 2 cores shared with wrk, the 500-entry
    /// answers' p99 was 7.4 ms with one I/O thread and 17–19 ms with one per
    /// core, at the same requests per second (`make bench-serve`). The
    /// answers themselves are built on Swift's concurrency threads, one
    /// per core either way; a second I/O thread only adds a thread
    /// competing for the same cores.
    @Option(name: .long, help: ArgumentHelp("Threads for network I/O (answers are built on a thread per core besides).", valueName: "count"))
    var ioThreads = 1

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard ioThreads >= 1 else { throw ValidationError("--io-threads must be 1 or more") }
        guard reloadInterval > 0 else { throw ValidationError("--reload-interval must be above 0") }
    }

    func run() async throws {
        var logger = Logger(label: "ingest-serve")
        logger.logLevel = .info
        let current = CurrentSnapshot(directory: SnapshotDirectory(path: snapshots))
        let changesets = ChangesetCache(directory: current.directory)
        let watcher = SnapshotWatcher(current: current, changesets: changesets, interval: reloadInterval, logger: logger)
        watcher.refresh()
        if current.snapshot == nil { logger.warning("no snapshot to serve yet in \(snapshots): answering 503 until one is published") }
        let server = ReadAPIServer(current: current, changesets: changesets)
        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: ioThreads)
        try await server.run(host: host, port: port, eventLoops: eventLoops, services: [watcher], logger: logger)
        try await eventLoops.shutdownGracefully()
    }
}
