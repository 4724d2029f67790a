import IngestCore

/// A field of a fixed-width file (FEEDS.md §12): characters `first` through
/// `last` of the decoded line, 1-based and inclusive. Characters are Unicode
/// scalars, as the fixed-width writers (mainframes, COBOL records) count them;
/// a range past a short line's end reads as empty.
///
/// A mapping stores it as the column key `"first-last"`, so filters, joined
/// fields and the record reader treat it like any other column.
public struct FixedWidthRange: Sendable, Hashable, CustomStringConvertible {
    public let first: Int
    public let last: Int

    public init?(first: Int, last: Int) {
        guard first >= 1, last >= first, last <= ParseLimits.lineBytes else { return nil }
        self.first = first
        self.last = last
    }

    /// The column key a mapping stores, `"1-7"`.
    public init?(key: String) {
        let parts = key.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int(parts[0]), let last = Int(parts[1]) else { return nil }
        self.init(first: first, last: last)
    }

    public var key: String { "\(first)-\(last)" }
    public var description: String { "[\(first), \(last)]" }

    /// This range's text in `line`, trimmed; empty past the line's end.
    public func text(in line: FixedWidthLine) -> String {
        guard first <= line.count else { return "" }
        let bytes = line.starts[first - 1]..<line.starts[min(last, line.count)]
        return line.utf8.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[bytes]), as: UTF8.self) }.trimmed
    }
}
