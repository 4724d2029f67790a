/// What a list answer says of its page (READ_API.md, Version 2): how many
/// match in all, and where the next page starts when one follows.
struct Paging: Equatable {
    var total: Int
    /// The rows of `0..<total` this answer holds.
    var shown: Range<Int>

    /// The offset of the next page; nil on the last.
    var next: Int? { shown.upperBound < total ? shown.upperBound : nil }
}

extension JSONWriter {
    /// `"total":"N"` and, when more follow, `"next":"OFFSET"`: strings, as every number of the answers is.
    mutating func paging(_ paging: Paging) {
        field("total", String(paging.total))
        if let next = paging.next { field("next", String(next)) }
    }
}
