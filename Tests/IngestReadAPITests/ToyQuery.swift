import Foundation
import IngestSnapshot
@testable import IngestReadAPI

/// Issue 47, item 5: a query a deployment could add, written as
/// docs/ADDING_A_QUERY.md says: one file, registered with one line.
/// `q=r`: each region with how many pharmacies it has, or one region's.
struct RegionCountQuery: ReadAPIQuery {
    static let name = "r"
    static let documentation = QueryDocumentation(
        summary: "pharmacies per region (optional region)", parameters: ["region"], answerSchema: "RegionCounts",
        answerSchemaDefinition: #"""
            {"type": "object", "required": ["regions"], "additionalProperties": false,
             "properties": {"regions": {"type": "array", "items": {"type": "object", "required": ["n", "c"], "additionalProperties": false,
                                                                   "properties": {"n": {"type": "string"}, "c": {"type": "string"}}}}}}
            """#,
        newParameters: [.init(name: "region", description: "q=r: only this region")])

    var region: String?

    init(_ parameters: QueryParameters) throws(ReadQuery.Invalid) {
        region = parameters["region"]
        if let region, region.count > 100 { throw ReadQuery.Invalid(reason: "region is a region's name, not \(ReadQuery.quoted(region))") }
    }

    func answer(from snapshot: OpenSnapshot, context: ReadContext) throws -> Data {
        let counts = try snapshot.withReader { try $0.pharmaciesPerRegion(region) }
        var writer = JSONWriter(capacity: 256)
        writer.object { answer in
            answer.key("regions")
            answer.array { list in
                for (name, count) in counts { list.object { $0.field("n", name); $0.field("c", String(count)) } }
            }
        }
        return writer.finish()
    }
}

extension SnapshotReader {
    /// The query's SQL, beside it: prepared once per connection (`cachedStatement`).
    func pharmaciesPerRegion(_ region: String?) throws(SQLiteError) -> [(name: String, count: Int64)] {
        let statement = try database.cachedStatement("""
            SELECT region, count(*) FROM pharmacies WHERE ?1 IS NULL OR region = ?1 GROUP BY region ORDER BY region
            """)
        defer { statement.reset() }
        try statement.bind(region, at: 1)
        var rows: [(name: String, count: Int64)] = []
        while try statement.step() { rows.append((statement.string(0) ?? "", statement.int64(1))) }
        return rows
    }
}
