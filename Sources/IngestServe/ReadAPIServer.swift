import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import IngestReadAPI
import IngestSnapshot
import Logging
import NIOCore
import ServiceLifecycle

/// The HTTP side: one URL (`/`) whose `q` picks the query, as the apps
/// send it, `/health`, `/metrics` and `/openapi.json`. Every answer of a
/// snapshot names the version it came from (`X-Snapshot-Version`).
///
/// Handlers only parse and encode: the SQLite reads run on `queries`' threads
/// and changeset builds on the cache's own (`BlockingWork`), so a slow
/// request never holds a thread another one needs.
struct ReadAPIServer {
    let current: CurrentSnapshot
    let changesets: ChangesetCache
    let queries: any BlockingWork
    let metrics: ServerMetrics
    let limits: Limits
    /// The service's time zone: "open now" and "that day" are read in it (READ_API.md, Version 3).
    var timeZone = ReadContext.defaultTimeZone
    /// `--cors-origin`: none, no CORS headers at all.
    var corsOrigins: [String] = []
    /// The queries `/` answers and `/openapi.json` describes.
    var registry = QueryRegistry.builtIn

    /// What a connection may take, from `ingest-serve`'s options.
    struct Limits {
        var headerTimeout: TimeAmount
        var idleTimeout: TimeAmount
        var maxConnections: Int
    }

    static let versionHeader = AnswerEncoding.versionHeader
    static let digestHeader = HTTPField.Name("Repr-Digest")!

    func run(host: String, port: Int, eventLoops: any EventLoopGroup, services: [any Service], accessLog: AccessLog?, logger: Logger) async throws {
        // HEAD: the GET handler's headers, no body.
        let router = Router(options: .autoGenerateHeadEndpoints)
        let document = try OpenAPIDocument.json(for: registry)
        router.add(middleware: RequestLogMiddleware(accessLog: accessLog, metrics: metrics, queries: Set(registry.names)))
        if !corsOrigins.isEmpty { router.add(middleware: CrossOriginMiddleware(origins: corsOrigins)) }
        router.add(middleware: UnroutedRequestMiddleware())
        router.get("/") { request, _ in await answer(request, logger: logger) }
        router.get("/health") { request, _ in
            guard let snapshot = current.snapshot else {
                return AnswerEncoding.json(request, status: .serviceUnavailable, body: ReadAPI.error("no snapshot has been published yet"), version: nil)
            }
            do {
                try await queries.run { try snapshot.probe() }
            } catch {
                logger.error("health probe failed", metadata: ["event": "health_failed", "version": "\(snapshot.version)", "error": "\(error)"])
                return AnswerEncoding.json(request, status: .serviceUnavailable,
                                           body: ReadAPI.error("the served snapshot \(snapshot.version) cannot be read: see the server's log"), version: nil)
            }
            var response = AnswerEncoding.json(request, status: .ok, body: ReadAPI.health(snapshot), version: nil)
            response.headers[Self.versionHeader] = snapshot.version
            return response
        }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition(serving: current.snapshot))))
        }
        router.get("/openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: document)))
        }
        let limits = limits
        let app = Application(
            router: router,
            server: .http1(configuration: .init(
                additionalChannelHandlers: [ConnectionGuard(headerTimeout: limits.headerTimeout, idleTimeout: limits.idleTimeout)])),
            configuration: .init(address: .hostname(host, port: port), serverName: "ingest-serve",
                                 availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections)),
            services: services,
            onServerRunning: { channel in
                // The line a supervisor (or a test, with --port 0) reads to find the server.
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(channel.localAddress?.port ?? port)\n".utf8))
            },
            eventLoopGroupProvider: .shared(eventLoops),
            logger: logger)
        try await app.runService()
    }

    func answer(_ request: Request, logger: Logger) async -> Response {
        let parameters = QueryString.parameters(request.uri.query)
        let query: ReadQuery
        do {
            query = try ReadQuery(parameters, registry: registry)
        } catch {
            return AnswerEncoding.json(request, status: .badRequest, body: ReadAPI.error(error.reason), version: nil)
        }
        guard let snapshot = current.snapshot else {
            return AnswerEncoding.json(request, status: .serviceUnavailable, body: ReadAPI.error("no snapshot has been published yet"), version: nil)
        }
        do {
            if let changes = query.request as? ChangesQuery { return try await self.changes(request, since: changes.since, snapshot: snapshot) }
            let context = ReadContext(now: Date(), timeZone: timeZone)
            // A hand-over to the query pool and back is two thread switches: paired under wrk, `q=p` took 13 % less
            // CPU per request answered here (docs/SERVING.md).
            let body: Data
            if let fromMemory = try ReadAPI.answerFromMemory(query, of: snapshot, context: context) {
                body = fromMemory
            } else {
                body = try await queries.run { try ReadAPI.answer(query, from: snapshot, context: context) }
            }
            return AnswerEncoding.json(request, status: .ok, body: body, version: snapshot.version,
                                       moment: query.saysWhatIsOpen ? String(Int(context.now.timeIntervalSince1970) / 60) : nil)
        } catch {
            // SQL and server paths go to the log, never to the client.
            let reference = UUID().uuidString.prefix(8).lowercased()
            logger.error("request failed: \(error)", metadata: ["event": "request_failed", "reference": "\(reference)",
                                                               "query": "\(request.uri.query ?? "")", "version": "\(snapshot.version)"])
            return AnswerEncoding.json(request, status: .internalServerError,
                                       body: ReadAPI.error("the server could not answer (reference \(reference) in its log)"), version: nil)
        }
    }

    /// A changeset sent a megabyte at a time, as the client takes it, read
    /// from its file on the query pool: the bench's nightly one is 96 MB,
    /// held in memory it was most of the server's resident memory
    /// (`OpenChangeset`).
    static func streamed(_ file: OpenChangeset, reads: any BlockingWork, chunk: Int = 1 << 20) -> ResponseBody {
        ResponseBody(contentLength: file.size) { writer in
            var offset = 0
            while offset < file.size {
                let start = offset
                let buffer = try await reads.run {
                    let wanted = min(chunk, file.size - start)
                    var buffer = ByteBufferAllocator().buffer(capacity: wanted)
                    try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { raw in
                        try file.read(at: start, into: raw.baseAddress!, count: wanted)
                        return wanted
                    }
                    return buffer
                }
                try await writer.write(buffer)
                offset += buffer.readableBytes
            }
            try await writer.finish(nil)
        }
    }

    private func changes(_ request: Request, since: String, snapshot: OpenSnapshot) async throws -> Response {
        switch try await changesets.answer(since: since, current: snapshot) {
        case .changeset(let file):
            // Not gzipped: the digest is of the bytes the client applies.
            return Response(status: .ok, headers: [.contentType: "application/octet-stream", Self.versionHeader: snapshot.version,
                                                   Self.digestHeader: file.digest.header, .cacheControl: "public, max-age=60"],
                            body: Self.streamed(file, reads: queries))
        case .upToDate:
            return Response(status: .noContent, headers: [Self.versionHeader: snapshot.version])
        case .gone(let reason):
            var response = AnswerEncoding.json(request, status: .gone, body: ReadAPI.error(reason), version: nil)
            response.headers[Self.versionHeader] = snapshot.version
            return response
        }
    }
}
