import Foundation

/// `q=a`: one level of the ATC tree, the children of `atc` (the top level without it).
public struct ATCTreeQuery: ReadAPIQuery {
    public static let name = "a"
    public static let documentation = QueryDocumentation(summary: "ATC tree (optional atc)", parameters: ["atc"], answerSchema: "ATCTree")

    public var parent: String?

    public init(parent: String?) {
        self.parent = parent
    }

    public init(_ parameters: QueryParameters) throws(ReadQuery.Invalid) {
        self.init(parent: parameters["atc"].flatMap { $0.isEmpty ? nil : $0.uppercased() })
    }

    public func answer(from snapshot: OpenSnapshot, context: ReadContext) throws -> Data {
        let groups = try snapshot.withReader { try $0.atcChildren(of: parent) }
        return ReadAPI.encode(ATCTree(atc: groups.map { .init(a: $0.code, n: $0.name, c: "\($0.items)", cc: "\($0.children)") }))
    }
}
