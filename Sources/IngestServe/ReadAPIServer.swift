import Foundation
import HTTPTypes
import Hummingbird
import IngestReadAPI
import Logging
import NIOCore
import ServiceLifecycle

/// The HTTP side: one URL (`/`) whose `q` picks the query, as the apps
/// send it, and `/openapi.json`. Every answer names the snapshot version
/// it came from (`X-Snapshot-Version`).
struct ReadAPIServer {
    let current: CurrentSnapshot
    let changesets: ChangesetCache

    static let versionHeader = HTTPField.Name("X-Snapshot-Version")!

    func run(host: String, port: Int, eventLoops: any EventLoopGroup, services: [any Service], logger: Logger) async throws {
        let router = Router()
        router.get("/") { request, _ in answer(request) }
        router.get("/health") { _, _ in
            guard let snapshot = current.snapshot else {
                return json(.serviceUnavailable, ReadAPI.error("no snapshot has been published yet"), version: nil)
            }
            return json(.ok, ReadAPI.health(snapshot), version: snapshot.version)
        }
        router.get("/openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "ingest-serve"),
            services: services,
            onServerRunning: { channel in
                // The line a supervisor (or a test, with --port 0) reads to find the server.
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(channel.localAddress?.port ?? port)\n".utf8))
            },
            eventLoopGroupProvider: .shared(eventLoops),
            logger: logger)
        try await app.runService()
    }

    func answer(_ request: Request) -> Response {
        var parameters: [String: String] = [:]
        for (key, value) in request.uri.queryParameters where parameters[String(key)] == nil { parameters[String(key)] = String(value) }
        let query: ReadQuery
        do {
            query = try ReadQuery(parameters)
        } catch {
            return json(.badRequest, ReadAPI.error(error.reason), version: nil)
        }
        guard let snapshot = current.snapshot else {
            return json(.serviceUnavailable, ReadAPI.error("no snapshot has been published yet"), version: nil)
        }
        do {
            if case .changes(let since) = query { return try changes(since: since, snapshot: snapshot) }
            return json(.ok, try ReadAPI.answer(query, from: snapshot), version: snapshot.version)
        } catch {
            return json(.internalServerError, ReadAPI.error("\(error)"), version: snapshot.version)
        }
    }

    private func changes(since: String, snapshot: OpenSnapshot) throws -> Response {
        switch try changesets.answer(since: since, current: snapshot) {
        case .changeset(let data):
            return Response(status: .ok, headers: [.contentType: "application/octet-stream", Self.versionHeader: snapshot.version],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        case .upToDate:
            return Response(status: .noContent, headers: [Self.versionHeader: snapshot.version])
        case .gone(let reason):
            return json(.gone, ReadAPI.error(reason), version: snapshot.version)
        }
    }

    private func json(_ status: HTTPResponse.Status, _ body: Data, version: String?) -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let version { headers[Self.versionHeader] = version }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
