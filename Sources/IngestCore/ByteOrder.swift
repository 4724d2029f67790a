import Foundation

/// Byte order of UTF-8 text: SQLite's BINARY collation, so the order offers
/// must reach the writer in. Swift's `<` on strings compares by canonical
/// equivalence instead, which can differ, and the generic UTF-8 view
/// comparison is slow on the hot path.
@inline(__always)
public func precedesInByteOrder(_ a: String, _ b: String) -> Bool {
    var a = a
    var b = b
    return a.withUTF8 { pa in b.withUTF8 { pb in byteOrder(UnsafeRawBufferPointer(pa), UnsafeRawBufferPointer(pb)) < 0 } }
}

/// The same order on raw bytes (a column SQLite hands out, no `String`
/// made): negative, zero or positive as `a` sorts before, with or after `b`.
@inline(__always)
public func byteOrder(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let common = min(a.count, b.count)
    let order = common == 0 ? 0 : Int(memcmp(a.baseAddress!, b.baseAddress!, common))
    return order != 0 ? order : (a.count < b.count ? -1 : (a.count > b.count ? 1 : 0))
}
