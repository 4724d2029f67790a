import HTTPTypes
import Hummingbird

/// CORS for web pages that call the API from a browser (READ_API.md,
/// Version 3): `--cors-origin ORIGIN`, repeatable, or `*`; none by default,
/// and then this middleware is not installed. A preflight `OPTIONS` from an
/// allowed origin is answered here (204); every answer to one carries
/// `Access-Control-Allow-Origin` and exposes the headers a client reads
/// (`ETag`, the snapshot version, the changeset digest).
///
/// Written here rather than Hummingbird's `CORSMiddleware`: its list of
/// origins (`AllowOriginExtended.oneOf`) is variadic only, so a list read
/// from the command line cannot be handed to it.
struct CrossOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let origins: Set<String>

    /// `origins` as given to `--cors-origin`; `*` among them allows any origin.
    init(origins: [String]) { self.origins = Set(origins) }

    private var anyOrigin: Bool { origins.contains("*") }

    /// The `Access-Control-Allow-Origin` value for a request from `origin`, nil when it is not allowed.
    func allowed(_ origin: String?) -> String? {
        guard let origin, origin != "null" else { return nil }
        if anyOrigin { return "*" }
        return origins.contains(origin) ? origin : nil
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let allow = allowed(request.headers[.origin])
        if request.method == .options, let allow, request.headers[.accessControlRequestMethod] != nil {
            var headers: HTTPFields = [.accessControlAllowOrigin: allow, .accessControlAllowMethods: "GET, HEAD",
                                       .accessControlAllowHeaders: "Accept, Accept-Encoding, If-None-Match", .accessControlMaxAge: "86400"]
            if !anyOrigin { headers[.vary] = "Origin" }
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        if let allow {
            response.headers[.accessControlAllowOrigin] = allow
            response.headers[.accessControlExposeHeaders] = "ETag, X-Snapshot-Version, Repr-Digest"
        }
        // A cache must keep answers for each origin apart when the header depends on it.
        if !anyOrigin { response.headers.append(HTTPField(name: .vary, value: "Origin")) }
        return response
    }
}
