import ArgumentParser
import Foundation
import IngestCore
import IngestReadAPI
import IngestSettings
import IngestSnapshot
import Logging
import NIOCore
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
            GET /?q=\(QueryRegistry.builtIn.names.filter { $0 != ChangesQuery.name }.joined(separator: "|")) answers the apps' queries; \
            GET /?q=changes&since=VERSION gives the changeset \
            from VERSION to current, with its SHA-256 in Repr-Digest (410 when VERSION is no longer kept); \
            GET /openapi.json describes it all. GET /health says which snapshot is served (503 before any is \
            published); GET /metrics is Prometheus text. A newly published current is picked up without a \
            restart; requests in flight finish on the old one. One JSON line per request goes to the access log.
            """,
        version: IngestVersion.build(commit: BuildInfo.commit, date: BuildInfo.commitDate))

    /// Where an installed `ingest-serve` finds its settings when `--config` names none.
    static let defaultConfigFile = "/etc/ingest/ingest-serve.toml"

    /// Options from `--config FILE` (or /etc/ingest/ingest-serve.toml) and
    /// `INGEST_SERVE_*` variables, under the command line's own; a bad setting exits 78.
    static func main() async {
        let user = Array(CommandLine.arguments.dropFirst())
        let arguments: [String]
        if user.contains("--help") || user.contains("-h") || user.contains("--version") {
            arguments = user
        } else {
            do {
                arguments = try LayeredArguments(command: self, environmentPrefix: "INGEST_SERVE_")
                    .arguments(user, environment: ProcessInfo.processInfo.environment, defaultFile: defaultConfigFile)
            } catch {
                FileHandle.standardError.write(Data("ingest-serve: configuration error: \(error)\n".utf8))
                Foundation.exit(78)
            }
        }
        await main(arguments)
    }

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
    /// core, at the same requests per second (`make bench-serve`).
    @Option(name: .long, help: ArgumentHelp("Threads for network I/O.", valueName: "count"))
    var ioThreads = 1

    @Option(name: .long, help: ArgumentHelp("Threads that read the snapshot for the answers (changesets are made on one of their own).",
                                            valueName: "count"))
    var queryThreads = 4

    @Option(name: .long, help: ArgumentHelp("A new connection has this long to send a complete request head; then it is closed.",
                                            valueName: "seconds"))
    var headerTimeout = 10.0

    @Option(name: .long, help: ArgumentHelp("A kept-alive connection is closed when no request comes this long after an answer.",
                                            valueName: "seconds"))
    var idleTimeout = 60.0

    @Option(name: .long, help: ArgumentHelp("Connections open at once at most; more wait to be accepted (keep it below `ulimit -n`).",
                                            valueName: "count"))
    var maxConnections = 512

    @Option(name: .long, help: ArgumentHelp("Where the access log's JSON lines go: a file to append to (opened again on SIGHUP, for logrotate), - for standard output, or off.",
                                            valueName: "path"))
    var accessLog = "-"

    @Option(name: .long, help: ArgumentHelp("The service's time zone (IANA name): which pharmacies are open now, and each one's hours of the day, are read in it.",
                                            valueName: "zone"))
    var timeZone = "Europe/Tallinn"

    @Option(name: .customLong("cors-origin"), help: ArgumentHelp("A web origin allowed to call the API from a browser (https://example.ee), repeatable, or * for any; none by default.",
                                                                 valueName: "origin"))
    var corsOrigins: [String] = []

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard ioThreads >= 1 else { throw ValidationError("--io-threads must be 1 or more") }
        guard queryThreads >= 1 else { throw ValidationError("--query-threads must be 1 or more") }
        guard reloadInterval > 0 else { throw ValidationError("--reload-interval must be above 0") }
        guard headerTimeout > 0, idleTimeout > 0 else { throw ValidationError("--header-timeout and --idle-timeout must be above 0") }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be 1 or more") }
        for origin in corsOrigins where origin != "*" && !(origin.hasPrefix("https://") || origin.hasPrefix("http://")) || origin.hasSuffix("/") {
            throw ValidationError("--cors-origin: \"\(origin)\" is not an origin such as https://example.ee (scheme and host, no path) or *")
        }
        guard TimeZone(identifier: timeZone) != nil else { throw ValidationError("--time-zone: no time zone named \"\(timeZone)\" (an IANA name such as Europe/Tallinn)") }
    }

    func run() async throws {
        AnswerBufferAllocation.keepLargeBuffersInTheHeap()
        var logger = Logger(label: "ingest-serve")
        logger.logLevel = .info
        let log: AccessLog?
        do {
            switch accessLog {
            case "off": log = nil
            case "-": log = try AccessLog(.standardOutput)
            default: log = try AccessLog(.file(accessLog))
            }
        } catch {
            throw ValidationError(error.description)
        }
        // logrotate's postrotate sends SIGHUP: the log is opened again at its path.
        signal(SIGHUP, SIG_IGN)
        let hangUp = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        hangUp.setEventHandler { [logger] in
            guard let log else { return }
            if let failure = log.reopen() {
                logger.error("access log not reopened", metadata: ["event": "access_log_reopen_failed", "error": "\(failure)"])
            } else {
                logger.info("access log reopened", metadata: ["event": "access_log_reopened"])
            }
        }
        hangUp.resume()
        defer { hangUp.cancel() }
        let queryPool = NIOThreadPool(numberOfThreads: queryThreads)
        let changesetPool = NIOThreadPool(numberOfThreads: 1)
        queryPool.start()
        changesetPool.start()
        let metrics = ServerMetrics()
        let current = CurrentSnapshot(directory: SnapshotDirectory(path: snapshots))
        let changesets = ChangesetCache(directory: current.directory, work: ThreadPoolWork(pool: changesetPool, background: true),
                                        started: { metrics.changesetStarted() }, built: { metrics.changesetBuilt(in: $0) })
        let watcher = SnapshotWatcher(current: current, changesets: changesets, work: ThreadPoolWork(pool: queryPool), interval: reloadInterval,
                                      logger: logger)
        await watcher.refresh()
        if current.snapshot == nil { logger.warning("no snapshot to serve yet in \(snapshots): answering 503 until one is published") }
        var server = ReadAPIServer(current: current, changesets: changesets, queries: ThreadPoolWork(pool: queryPool), metrics: metrics,
                                   limits: .init(headerTimeout: .nanoseconds(Int64(headerTimeout * 1e9)),
                                                 idleTimeout: .nanoseconds(Int64(idleTimeout * 1e9)), maxConnections: maxConnections))
        // validate() made sure the name is known.
        server.timeZone = TimeZone(identifier: timeZone) ?? ReadContext.defaultTimeZone
        server.corsOrigins = corsOrigins
        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: ioThreads)
        try await server.run(host: host, port: port, eventLoops: eventLoops, services: [watcher], accessLog: log, logger: logger)
        try await eventLoops.shutdownGracefully()
        try await queryPool.shutdownGracefully()
        try await changesetPool.shutdownGracefully()
    }
}
