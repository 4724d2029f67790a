/// Which part of a list answer a client asked for (READ_API.md, Version 2:
/// `limit` and `offset`). A `limit` above the most a query gives is
/// clamped, not refused: a client asking for "all" gets the most there is
/// and a `next` to go on from.
public struct ResultPage: Equatable, Sendable {
    /// nil: the query's own default (READ_API.md: 50 items, every pharmacy, 10 nearest).
    public var limit: Int?
    public var offset: Int

    public init(limit: Int? = nil, offset: Int = 0) {
        self.limit = limit
        self.offset = offset
    }

    public static let first = ResultPage()

    /// At most this many entries to a page.
    public static let maximum = 500

    /// The rows of `0..<total` this page shows, with `limit` clamped to
    /// `maximum` and defaulted to `whole`'s value (nil: every row).
    func range(total: Int, defaultLimit: Int?, maximum: Int = ResultPage.maximum) -> Range<Int> {
        let limit = min(limit ?? defaultLimit ?? total, maximum)
        let start = min(offset, total)
        return start..<min(total, start + min(limit, total - start))
    }

    /// `limit` and `offset` from a request: whole numbers written in decimal
    /// digits only, `limit` at least 1. A number too long to hold is as
    /// good as the largest: a clamped limit, an offset past every answer.
    init(_ parameters: [String: String]) throws(ReadQuery.Invalid) {
        func whole(_ name: String) throws(ReadQuery.Invalid) -> Int? {
            guard let text = parameters[name] else { return nil }
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw ReadQuery.Invalid(reason: "\(name) is a whole number, not \(ReadQuery.quoted(text))")
            }
            return Int(text) ?? Int.max
        }
        let limit = try whole("limit")
        if limit == 0 { throw ReadQuery.Invalid(reason: "limit is 1 or more") }
        self.init(limit: limit, offset: try whole("offset") ?? 0)
    }
}
