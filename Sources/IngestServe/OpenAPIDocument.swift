import Foundation
import IngestReadAPI

/// The OpenAPI 3.1 description of the read API, served at `/openapi.json`.
/// `openapi.json` holds what the queries share: the paths, the parameters
/// (each described once), the answers' schemas (JSON Schema 2020-12) and the
/// errors. What is per query is made here from the registered queries
/// (`QueryRegistry`): the values of `q`, the line that says what each
/// answers, and the answer schemas `/` may return. A query added to the
/// registry is in the document without an edit to it; `OpenAPIDocumentTests`
/// fails when a query reads a parameter the document does not describe, or
/// the document describes one no query reads. The end-to-end test holds each
/// kind of answer (errors too) to its schema with python-jsonschema.
enum OpenAPIDocument {
    /// The shared part as `openapi.json` holds it, compiled into the binary
    /// (`.embedInCode`): an installed `ingest-serve` has no resource folder beside it.
    static let base = PackageResources.openapi_json

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// The document for `registry`'s queries.
    static func json(for registry: QueryRegistry) throws -> String {
        guard var document = try JSONSerialization.jsonObject(with: Data(base)) as? [String: Any],
              var paths = document["paths"] as? [String: Any], var root = paths["/"] as? [String: Any],
              var get = root["get"] as? [String: Any], var parameters = get["parameters"] as? [[String: Any]],
              var responses = get["responses"] as? [String: Any], var ok = responses["200"] as? [String: Any],
              var content = ok["content"] as? [String: Any], var json = content["application/json"] as? [String: Any],
              var components = document["components"] as? [String: Any], var schemas = components["schemas"] as? [String: Any],
              let q = parameters.firstIndex(where: { $0["name"] as? String == "q" }) else {
            throw Malformed(description: "openapi.json lacks the path /, its parameter q, its 200 answer or its schemas")
        }
        parameters[q]["schema"] = ["type": "string", "enum": registry.names]
        parameters[q]["description"] = "Which query"
        get["description"] = description(of: registry)
        var answers: [String] = []
        for query in registry.queries {
            for parameter in query.documentation.newParameters where !parameters.contains(where: { $0["name"] as? String == parameter.name }) {
                parameters.append(["name": parameter.name, "in": "query", "required": false, "description": parameter.description,
                                   "schema": ["type": "string"]])
            }
            guard let schema = query.documentation.answerSchema, !answers.contains(schema) else { continue }
            answers.append(schema)
            if let definition = query.documentation.answerSchemaDefinition {
                schemas[schema] = try JSONSerialization.jsonObject(with: Data(definition.utf8))
            }
        }
        json["schema"] = ["oneOf": answers.map { ["$ref": "#/components/schemas/\($0)"] }]
        content["application/json"] = json
        ok["content"] = content
        responses["200"] = ok
        get["responses"] = responses
        get["parameters"] = parameters
        root["get"] = get
        paths["/"] = root
        document["paths"] = paths
        components["schemas"] = schemas
        document["components"] = components
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// `q=p pharmacy list (…); q=i item search (…); …`, and which lists page.
    static func description(of registry: QueryRegistry) -> String {
        let lines = registry.queries.map { "q=\($0.name) \($0.documentation.summary)" }
        let paged = registry.queries.filter { $0.documentation.parameters.contains("offset") }.map { "q=\($0.name)" }
        return lines.joined(separator: "; ") + "."
            + (paged.isEmpty ? "" : " The lists (\(paged.joined(separator: ", "))) page with limit and offset and say total and next.")
    }
}
