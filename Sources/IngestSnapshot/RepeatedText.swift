import Foundation

/// A column's text as a `String`, the same instance again while the bytes
/// repeat: a pharmacy's offers share a few `price_since` values, and a new
/// 25-byte string per row was an allocation per offer.
public struct RepeatedText {
    private var last: String?
    private var lastBytes: [UInt8] = []

    public init() {}

    /// `bytes` as a string (nil for SQL NULL, whose pointer is nil).
    public mutating func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.baseAddress != nil else { return nil }
        // memcmp: `elementsEqual` on raw buffers is a generic loop, byte by byte.
        if let last, bytes.count == lastBytes.count,
           bytes.isEmpty || lastBytes.withUnsafeBytes({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }) { return last }
        let text = String(decoding: bytes, as: UTF8.self)
        last = text
        lastBytes = Array(bytes)
        return text
    }
}
