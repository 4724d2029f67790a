/// A string as JSON text (RFC 8259), the one escaper of the project: `"`
/// and `\` escaped, newline, return, tab, backspace and form feed by their
/// short escapes, other control characters as `\u00XX`, everything else
/// as UTF-8, slashes not escaped. The same bytes `JSONEncoder` writes with
/// `.withoutEscapingSlashes`, which the journals were first written with;
/// the read API's answers and the journals once escaped control
/// characters differently.
public enum JSONString {
    /// Whether `utf8` goes between the quotes as it is: no control character, quote or backslash.
    @inlinable
    public static func needsNoEscaping(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        !utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
    }

    public static func append(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        if string.withUTF8(needsNoEscaping) {
            bytes.append(contentsOf: string.utf8) // the common case: nothing to escape
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [92, 34]
            case UInt8(ascii: "\\"): bytes += [92, 92]
            case 0x0A: bytes += [92, UInt8(ascii: "n")]
            case 0x0D: bytes += [92, UInt8(ascii: "r")]
            case 0x09: bytes += [92, UInt8(ascii: "t")]
            case 0x08: bytes += [92, UInt8(ascii: "b")]
            case 0x0C: bytes += [92, UInt8(ascii: "f")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += [92, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
