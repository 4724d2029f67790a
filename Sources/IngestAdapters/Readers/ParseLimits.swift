import IngestCore

/// The shapes no real feed has and a hostile or broken one can use to stall
/// a night or fill memory: each is checked while the bytes stream in, and
/// going past one rejects the file whole (`limit_exceeded`, naming the
/// limit), so every other file goes on (FEEDS.md: one bad file never stops
/// the night).
///
/// Why these numbers: the largest real records (a GS1 datasheet item, a
/// register row with a long URL) are a few kilobytes; every limit sits a
/// thousand times above what a feed needs and far below what costs. The
/// attribute count matters most: libxml2 2.9.14 (Debian 12) checks an
/// element's attributes for duplicates in quadratic time, so 300,000 of them
/// in one 2.4 MB tag ran for minutes; at 512 the check is instant.
public enum ParseLimits {
    /// Elements nested deeper than this (libxml2's SAX mode has no limit of its own).
    public static let elementDepth = 256
    /// Attributes in one start tag.
    public static let attributesPerElement = 512
    /// Bytes of one attribute value.
    public static let attributeBytes = 1 << 20
    /// Bytes of one start tag, attributes included.
    public static let tagBytes = 4 << 20
    /// Bytes of character data (or one comment, CDATA section or processing
    /// instruction) between two tags.
    public static let textBytes = 8 << 20
    /// Bytes of one line of a line-based feed (RAX) or one record of a
    /// delimited one: past this the file is not a line-based export at all.
    /// Shorter lines that are still too long for a record (64 KiB) reject
    /// just that record (`line_too_long`).
    public static let lineBytes = 1 << 20
    /// Bytes of one field of a delimited file.
    public static let fieldBytes = 1 << 20 // INGEST_CSV_MAX_FIELD_BYTES in CCSV/shim.h: libcsv's realloc hook has no context

    /// The failure for a limit gone past: `name` is the limit as the docs
    /// name it; `what` ends where the number goes ("… more attributes than").
    public static func exceeded(_ name: String, limit: Int, _ what: String, bytes: Bool = false, line: Int) -> FeedFailure {
        FeedFailure(reason: .limitExceeded, message: "\(what) \(limit)\(bytes ? " bytes" : "") (limit \(name))", line: line)
    }
}

extension RejectReason {
    /// The file goes past one of `ParseLimits`, or past `--feed-timeout`.
    public static let limitExceeded = RejectReason(rawValue: "limit_exceeded")
}
