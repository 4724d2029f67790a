import IngestCore

extension FeedOutput {
    /// Fails a reference file that rejected every row it read, or more than
    /// `limit` percent of them; filtered rows count on neither side, as for
    /// stock (FEEDS.md §12.1). Yesterday's good register must not give way
    /// to tonight's empty one: a failed file never becomes the one in force.
    public mutating func failIfTooManyRejects(limit: Int) {
        guard failure == nil else { return }
        let (counted, failed) = (read - filtered, rejected - filtered)
        guard counted > 0, failed == counted || failed * 100 > limit * counted else { return }
        let why = failed == counted ? "every row rejected" : "over the \(limit) % allowed"
        failure = FeedFailure(reason: .tooManyRejects,
                              message: "\(failed) of \(counted) rows rejected (\(Self.percent(failed, of: counted)) %), \(why); not loaded, the one in force stays")
    }

    /// `part` of `whole` in percent with one decimal, rounded half-up (`7.5`).
    static func percent(_ part: Int, of whole: Int) -> String {
        let tenths = Int(HalfUpRounding.divide(Int128(part) * 1000, by: Int128(whole)))
        return "\(tenths / 10).\(tenths % 10)"
    }
}

extension RejectReason {
    /// A reference file rejecting every row, or more than its limit (FEEDS.md §12.1).
    public static let tooManyRejects = RejectReason(rawValue: "too_many_rejects")
}
