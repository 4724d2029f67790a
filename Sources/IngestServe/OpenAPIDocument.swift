/// The OpenAPI 3.1 description of the read API, served at `/openapi.json`,
/// written by hand from READ_API.md, in `openapi.json`. Its schemas are JSON Schema
/// (2020-12); the end-to-end test checks that it is served and lists every
/// query, and holds each kind of answer (errors too) to its schema with
/// python-jsonschema, so the document cannot drift from what is served.
enum OpenAPIDocument {
    /// The document as `openapi.json` holds it, compiled into the binary
    /// (`.embedInCode`): an installed `ingest-serve` has no resource folder beside it.
    static let json = String(decoding: PackageResources.openapi_json, as: UTF8.self)
}
