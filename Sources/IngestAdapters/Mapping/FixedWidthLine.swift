/// One decoded line of a fixed-width file, ready to be cut by
/// `FixedWidthRange`s: its UTF-8 and where each Unicode scalar starts, so a
/// range's text is one slice of bytes decoded.
///
/// Cutting an array of scalars instead went through the standard library's
/// generic `UnicodeScalarView.append(contentsOf:)` (each scalar widened and
/// re-encoded): 268,000 instructions a row, a seventh of all of
/// `make bench-instructions`' run for one fixed-width feed of 10,000 rows.
public struct FixedWidthLine {
    let utf8: [UInt8]
    /// The offset in `utf8` where each scalar starts, then `utf8.count`.
    let starts: [Int]

    public init(_ line: String) {
        let utf8 = Array(line.utf8)
        var starts: [Int] = []
        starts.reserveCapacity(utf8.count + 1)
        // A scalar starts at every byte that is not a UTF-8 continuation byte (10xxxxxx).
        for (offset, byte) in utf8.enumerated() where byte & 0xC0 != 0x80 { starts.append(offset) }
        starts.append(utf8.count)
        self.utf8 = utf8
        self.starts = starts
    }

    /// Its length in Unicode scalars.
    public var count: Int { starts.count - 1 }
}
