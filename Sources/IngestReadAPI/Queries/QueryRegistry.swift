/// The queries the read API answers, by name, in the order the documents
/// list them. `builtIn` is READ_API.md's; a test, or a server built with
/// more, passes its own.
public struct QueryRegistry: Sendable {
    public let queries: [any ReadAPIQuery.Type]

    public init(_ queries: [any ReadAPIQuery.Type]) {
        self.queries = queries
    }

    public static let builtIn = QueryRegistry([
        PharmacyListQuery.self,
        ItemSearchQuery.self,
        ItemPharmaciesQuery.self,
        ItemDetailsQuery.self,
        ATCTreeQuery.self,
        PriceHistoryQuery.self,
        EquivalentsQuery.self,
        DiagnosisQuery.self,
        DatasheetQuery.self,
        ChangesQuery.self,
    ])

    /// Every query's name, for the metrics' labels and the error that lists them.
    public var names: [String] { queries.map { $0.name } }

    /// `p, i, … or changes`.
    var namesInWords: String {
        names.dropLast().joined(separator: ", ") + (names.count > 1 ? " or " : "") + (names.last ?? "")
    }

    public func query(named name: String) -> (any ReadAPIQuery.Type)? {
        queries.first { $0.name == name }
    }
}
