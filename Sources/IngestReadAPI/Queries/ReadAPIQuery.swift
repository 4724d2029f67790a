import Foundation

/// One query of the read API, in one type: its name (`q=NAME`, the metrics'
/// and the access log's label), the parameters it reads and how it checks
/// them, its answer and what the OpenAPI document says of it. Adding a query
/// once meant an enum case, a switch arm in the answers, a response type, the
/// SQL, `openapi.json` by hand and three lists of query names; now it is one
/// file and one line in `QueryRegistry.builtIn` (docs/ADDING_A_QUERY.md).
public protocol ReadAPIQuery: Sendable, Equatable {
    /// What the query is called: `q=NAME`.
    static var name: String { get }
    /// Its entry in `/openapi.json`: a summary, the parameters it reads
    /// beyond `q`, and the schema of its answer.
    static var documentation: QueryDocumentation { get }
    /// The query from the request's parameters, checked: everything a client
    /// can get wrong is a `ReadQuery.Invalid` (HTTP 400), before any SQL runs.
    init(_ parameters: QueryParameters) throws(ReadQuery.Invalid)
    /// The JSON body, from one open snapshot. `context`: the clock and the
    /// service's time zone (what is open now).
    func answer(from snapshot: OpenSnapshot, context: ReadContext) throws -> Data
    /// Whether the answer depends on the clock (so its ETag must too).
    var saysWhatIsOpen: Bool { get }
    /// The answer when what the open snapshot keeps in memory is enough for
    /// it, without reading the file; nil otherwise. The server asks this on
    /// the request's own thread, and hands the query to the threads that may
    /// wait on SQLite only when it is nil.
    func answerFromMemory(of snapshot: OpenSnapshot, context: ReadContext) throws -> Data?
}

extension ReadAPIQuery {
    public var saysWhatIsOpen: Bool { false }
    public func answerFromMemory(of snapshot: OpenSnapshot, context: ReadContext) throws -> Data? { nil }

    /// `other` is the same query with the same arguments.
    func isEqual(to other: any ReadAPIQuery) -> Bool {
        (other as? Self) == self
    }
}

/// What `/openapi.json` says of a query.
public struct QueryDocumentation: Sendable {
    /// One line: what the query answers.
    public var summary: String
    /// The parameters the query reads besides `q`, by name: each is described
    /// once in the document's parameter list, shared by the queries that read it.
    public var parameters: [String]
    /// The component schema of its JSON answer (`PharmacyList`); nil for an
    /// answer that is not JSON (a changeset).
    public var answerSchema: String?
    /// The schema itself (JSON Schema as JSON), for an answer whose schema
    /// `openapi.json` does not hold; nil: it does.
    public var answerSchemaDefinition: String?
    /// Parameters of its own that `openapi.json` does not describe (a
    /// query added outside the repository's document); each of them must
    /// also be in `parameters`.
    public var newParameters: [NewParameter]

    /// A query parameter as the document lists it: a string in the query string.
    public struct NewParameter: Sendable {
        public var name: String
        public var description: String
        public init(name: String, description: String) {
            self.name = name
            self.description = description
        }
    }

    public init(summary: String, parameters: [String], answerSchema: String?, answerSchemaDefinition: String? = nil,
                newParameters: [NewParameter] = []) {
        self.summary = summary
        self.parameters = parameters
        self.answerSchema = answerSchema
        self.answerSchemaDefinition = answerSchemaDefinition
        self.newParameters = newParameters
    }
}
