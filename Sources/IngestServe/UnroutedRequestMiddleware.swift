import Foundation
import HTTPTypes
import Hummingbird
import IngestReadAPI

/// What the router does not answer gets a JSON reason like every other
/// refusal: a method other than GET or HEAD is 405 with `Allow` (the
/// OpenAPI document lists GET only; TRACE and the rest were 404 with an
/// empty body), an unknown path 404.
struct UnroutedRequestMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            return Self.refusal(.methodNotAllowed, "method \(request.method.rawValue.prefix(32)) is not served: GET or HEAD",
                                extra: [.allow: "GET, HEAD"])
        }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return Self.refusal(.notFound, "no such path: / (the queries), /health, /metrics or /openapi.json")
        }
    }

    static func refusal(_ status: HTTPResponse.Status, _ reason: String, extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: .init(data: ReadAPI.error(reason))))
    }
}
