import Foundation

/// Byte order of UTF-8 text: SQLite's BINARY collation, so the order offers
/// must reach the writer in. Swift's `<` on strings compares by canonical
/// equivalence instead, which can differ, and the generic UTF-8 view
/// comparison is slow on the hot path.
@inline(__always)
public func precedesInByteOrder(_ a: String, _ b: String) -> Bool {
    var a = a
    var b = b
    return a.withUTF8 { pa in
        b.withUTF8 { pb in
            let common = min(pa.count, pb.count)
            let order = common == 0 ? 0 : memcmp(pa.baseAddress!, pb.baseAddress!, common)
            return order != 0 ? order < 0 : pa.count < pb.count
        }
    }
}
