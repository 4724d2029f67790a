import Foundation
import IngestReadAPI
import Testing
@testable import IngestServe

/// Issue 47, item 5: a query is one type registered once; `/openapi.json`
/// is made from the registered queries and agrees with them.
@Suite struct QueryRegistryTests {
    static let withToy = QueryRegistry(QueryRegistry.builtIn.queries + [RegionCountQuery.self])

    /// The document's parts, parsed.
    static func document(_ registry: QueryRegistry) throws -> (parameters: [String], q: [String], answers: [String], schemas: [String], description: String) {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json(for: registry).utf8)) as? [String: Any])
        let get = try #require(((document["paths"] as? [String: Any])?["/"] as? [String: Any])?["get"] as? [String: Any])
        let parameters = try #require(get["parameters"] as? [[String: Any]])
        let q = try #require(parameters.first { $0["name"] as? String == "q" }?["schema"] as? [String: Any])
        let ok = try #require((get["responses"] as? [String: Any])?["200"] as? [String: Any])
        let json = try #require(((ok["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any])
        let answers = try #require(json["oneOf"] as? [[String: String]]).compactMap { $0["$ref"]?.replacingOccurrences(of: "#/components/schemas/", with: "") }
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        return (parameters.compactMap { $0["name"] as? String }, q["enum"] as? [String] ?? [], answers, Array(schemas.keys), get["description"] as? String ?? "")
    }

    @Test(arguments: [QueryRegistry.builtIn, withToy])
    func theDocumentDescribesEveryRegisteredQueryAndNothingElse(_ registry: QueryRegistry) throws {
        let document = try Self.document(registry)
        #expect(document.q == registry.names)
        let read = Set(registry.queries.flatMap { $0.documentation.parameters })
        // Every parameter a query reads is described; every one described is read by a query (q aside).
        #expect(read.subtracting(document.parameters).isEmpty, "not described: \(read.subtracting(document.parameters))")
        #expect(Set(document.parameters).subtracting(read + ["q"]).isEmpty, "read by no query: \(Set(document.parameters).subtracting(read))")
        #expect(document.answers == registry.queries.compactMap { $0.documentation.answerSchema })
        #expect(Set(document.answers).isSubset(of: Set(document.schemas)))
        for query in registry.queries { #expect(document.description.contains("q=\(query.name) \(query.documentation.summary)")) }
    }

    @Test func theBuiltInQueriesAreREAD_APIs() {
        #expect(QueryRegistry.builtIn.names == ["p", "i", "ip", "id", "a", "h", "eq", "dx", "g", "changes"])
    }

    /// The toy query, registered with one line, is parsed, answered and
    /// refused like the built-in ones; without it `q=r` is unknown.
    @Test func aQueryAddedInOneFileIsAnswered() throws {
        #expect(throws: ReadQuery.Invalid(reason: "unknown q=\"r\": expected p, i, ip, id, a, h, eq, dx, g or changes")) { try ReadQuery(["q": "r"]) }
        let snapshot = try SampleSnapshot.snapshot()
        let all = try JSONSerialization.jsonObject(with: ReadAPI.answer(try ReadQuery(["q": "r"], registry: Self.withToy), from: snapshot)) as? [String: [[String: String]]]
        let regions = try #require(all?["regions"])
        #expect(!regions.isEmpty && regions.map { $0["n"] ?? "" } == regions.map { $0["n"] ?? "" }.sorted())
        let first = try #require(regions.first)
        let one = try JSONSerialization.jsonObject(with: ReadAPI.answer(try ReadQuery(["q": "r", "region": first["n"]!], registry: Self.withToy), from: snapshot))
        #expect((one as? [String: [[String: String]]])?["regions"] == [first])
        // The shared checks hold for it too: a bad latitude is refused whatever the query.
        #expect(throws: ReadQuery.Invalid(reason: "latitude is not a number of degrees in -90…90: \"north\"")) {
            try ReadQuery(["q": "r", "latitude": "north", "longitude": "1"], registry: Self.withToy)
        }
        #expect(try ReadQuery(["q": "r"], registry: Self.withToy) != ReadQuery(["q": "r", "region": "x"], registry: Self.withToy))
    }
}
