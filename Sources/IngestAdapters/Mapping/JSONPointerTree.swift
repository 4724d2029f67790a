/// The JSON Pointers a mapping reads (RFC 6901, FEEDS.md §12), as one tree
/// the streaming reader walks down while values go by: a node per pointer
/// prefix, so a value's place in the document is known from its parent's
/// node and its own key or index, without building its path.
///
/// Two roots: the document's (absolute pointers, written `$/pharmacy`, and
/// the pointer to the records) and a record's (the fields' pointers).
struct JSONPointerTree {
    struct Node {
        var children: [String: Int] = [:]
        /// The mapped column keys (`/price`, `$/pharmacy`) that end here.
        var mapped: [String] = []
        /// This node is the array of records.
        var isRecords = false
    }

    static let documentRoot = 0
    static let recordRoot = 1
    private(set) var nodes = [Node(), Node()]

    /// The tree of `columns` (each `/a/b` from a record, `$/a/b` from the
    /// document), with the records at `recordPointer` (nil: each JSON Lines
    /// line is one record).
    init(columns: Set<String>, recordPointer: String?) {
        if let recordPointer, let tokens = Self.tokens(recordPointer) {
            nodes[add(tokens, from: Self.documentRoot)].isRecords = true
        }
        for column in columns.sorted() {
            if column.hasPrefix("$"), let tokens = Self.tokens(String(column.dropFirst())) {
                nodes[add(tokens, from: Self.documentRoot)].mapped.append(column)
            } else if let tokens = Self.tokens(column) {
                nodes[add(tokens, from: Self.recordRoot)].mapped.append(column)
            }
        }
    }

    func child(of node: Int, _ token: String) -> Int? { nodes[node].children[token] }
    func hasChildren(_ node: Int) -> Bool { !nodes[node].children.isEmpty }

    private mutating func add(_ tokens: [String], from root: Int) -> Int {
        var node = root
        for token in tokens {
            if let next = nodes[node].children[token] {
                node = next
            } else {
                nodes.append(Node())
                nodes[node].children[token] = nodes.count - 1
                node = nodes.count - 1
            }
        }
        return node
    }

    /// A pointer's reference tokens, `~1` and `~0` unescaped; nil when it is
    /// not a pointer (it must be empty or start with `/`).
    static func tokens(_ pointer: String) -> [String]? {
        guard pointer.isEmpty || pointer.hasPrefix("/") else { return nil }
        guard !pointer.isEmpty else { return [] }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }
}
