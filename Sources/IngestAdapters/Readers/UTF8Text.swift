import Glibc

/// UTF-8 checks on raw field bytes, shared by the adapters that read UTF-8
/// (and by RAX, to notice a Windows-1257 export saved as UTF-8).
enum UTF8Text {
    /// Validated UTF-8 without NUL; plain ASCII skips validation.
    ///
    /// Not `String(validating:as:)`: it is generic over the encoding and
    /// the sequence and ran unspecialised here, looking up type metadata on
    /// every call (callgrind: a tenth of a mapped parse). `String(decoding:)`
    /// replaces each invalid sequence with U+FFFD, so the text is valid
    /// exactly when its bytes come out unchanged.
    static func string(_ buffer: UnsafeBufferPointer<UInt8>) -> String? {
        var ascii = true
        for byte in buffer {
            if byte == 0 { return nil }
            if byte >= 0x80 { ascii = false }
        }
        var text = String(decoding: buffer, as: UTF8.self)
        if ascii { return text }
        let unchanged = text.withUTF8 { decoded in
            decoded.count == buffer.count && memcmp(decoded.baseAddress!, buffer.baseAddress!, buffer.count) == 0
        }
        return unchanged ? text : nil
    }

    /// Whether `buffer` is valid UTF-8 (NUL included).
    static func isValid(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        var text = String(decoding: buffer, as: UTF8.self)
        return text.withUTF8 { decoded in
            decoded.count == buffer.count && (buffer.isEmpty || memcmp(decoded.baseAddress!, buffer.baseAddress!, buffer.count) == 0)
        }
    }
}
