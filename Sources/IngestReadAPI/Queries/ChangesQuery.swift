import Foundation

/// `q=changes`: the changeset from a client's version to current
/// (SNAPSHOT.md). Not JSON: the server hands it to `ChangesetCache`.
public struct ChangesQuery: ReadAPIQuery {
    public static let name = "changes"
    public static let documentation = QueryDocumentation(summary: "changeset since a version (since)", parameters: ["since"], answerSchema: nil)

    public var since: String

    public init(since: String) {
        self.since = since
    }

    public init(_ parameters: QueryParameters) throws(ReadQuery.Invalid) {
        self.init(since: try parameters.required("since"))
    }

    /// Changesets come from the nightly files, not from one open snapshot.
    public struct ServedElsewhere: Error, CustomStringConvertible {
        public var description: String { "q=changes is answered by ChangesetCache, not from a snapshot" }
    }

    public func answer(from snapshot: OpenSnapshot, context: ReadContext) throws -> Data {
        throw ServedElsewhere()
    }
}
