import Foundation
import HTTPTypes
import Hummingbird
import IngestCore
import IngestReadAPI

/// One JSON line per request on the access log (method, query, status,
/// bytes, microseconds), and the same request counted in `/metrics`. The
/// query is the client's text: it is cut to 1 KiB and written JSON-escaped,
/// so neither a long nor a hostile one reaches the log's reader raw.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let accessLog: AccessLog?
    let metrics: ServerMetrics
    /// The label values a metric may take for `/`: the registered queries'
    /// names, so a client cannot grow the registry with made-up queries.
    let queries: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            record(request, status: status.code, bytes: 0, since: start)
            throw error
        }
        record(request, status: response.status.code, bytes: response.body.contentLength ?? 0, since: start)
        return response
    }

    private func record(_ request: Request, status: Int, bytes: Int, since start: ContinuousClock.Instant) {
        let duration = ContinuousClock.now - start
        let query = request.uri.query ?? ""
        let kind = request.uri.path == "/" ? (request.uri.queryParameters.get("q").map { queries.contains($0) ? $0 : "other" } ?? "none")
                                           : (Self.paths.contains(request.uri.path) ? request.uri.path : "other")
        metrics.record(query: kind, status: status, duration: duration)
        guard let accessLog else { return }
        var line = JSONWriter(capacity: 256)
        line.object { line in
            line.field("time", MachineTime.utcSeconds(Date()))
            line.field("method", request.method.rawValue)
            line.field("path", String(request.uri.path.prefix(256)))
            line.field("query", String(decoding: query.utf8.prefix(1024), as: UTF8.self))
            line.field("status", status)
            line.field("bytes", bytes)
            line.field("us", Int(duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000))
        }
        accessLog.write(line.bytes + [0x0A])
    }

    static var paths: Set<String> { ["/health", "/metrics", "/openapi.json"] }
}
