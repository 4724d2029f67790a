/// Trimming of ASCII white space (space, tab, CR, LF) on UTF-8 bytes.
///
/// Foundation's `trimmingCharacters(in:)` bridges through NSString and took
/// over half of a Noom parse's time; feed fields only ever carry ASCII
/// padding, so this works on the UTF-8 view and returns the same string
/// when there is nothing to trim.
extension StringProtocol {
    public var trimmed: String {
        let whole = Substring(self)
        let bytes = whole.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, Self.isPadding(bytes[start]) { start = bytes.index(after: start) }
        while end > start, Self.isPadding(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        if start == bytes.startIndex, end == bytes.endIndex, let string = self as? String { return string }
        return String(whole[start..<end])
    }

    @inline(__always)
    static func isPadding(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 10 || byte == 13 }
}

extension String {
    /// The common case, nothing to trim, returns at once without a cast or
    /// copy. A padded string (every field of a fixed-width line) is cut on
    /// its contiguous bytes: the padding is ASCII, so what is left is whole
    /// UTF-8. Through `Substring`'s index walk it cost 1,250 instructions a
    /// field (`make bench-instructions`, docs/PERFORMANCE.md).
    public var trimmed: String {
        var copy = self
        let cut = copy.withUTF8 { bytes -> String? in
            guard let first = bytes.first, let last = bytes.last, Self.isPadding(first) || Self.isPadding(last) else { return nil }
            return String(decoding: bytes.trimmedASCII, as: UTF8.self)
        }
        return cut ?? self
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The bytes without leading and trailing ASCII white space.
    public var trimmedASCII: UnsafeBufferPointer<UInt8> {
        var start = 0
        var end = count
        while start < end, String.isPadding(self[start]) { start += 1 }
        while end > start, String.isPadding(self[end - 1]) { end -= 1 }
        return UnsafeBufferPointer(rebasing: self[start..<end])
    }
}

extension String {
    /// Upper-case for codes (aptcode, ATC): returns itself when there is no
    /// lower-case ASCII letter, which is nearly always, without allocating.
    public var uppercasedCode: String {
        var copy = self
        let plain = copy.withUTF8 { bytes in
            for byte in bytes where (byte >= 97 && byte <= 122) || byte >= 0x80 { return false }
            return true
        }
        return plain ? self : uppercased()
    }
}
