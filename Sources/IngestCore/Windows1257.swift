#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decodes Windows-1257 (Baltic) text, the encoding of RAX exports.
///
/// Foundation on Linux has no cp1257, but glibc's iconv does. The code page
/// is single-byte, so iconv is asked once per byte value when the table is
/// built and the hot path is a table lookup; bytes iconv calls undefined
/// (0x81, 0x83, …) stay undefined, and text containing them is refused.
public struct Windows1257: Sendable {
    /// UTF-8 bytes for each byte value, packed for the hot path: up to three
    /// bytes, low byte first, and their count in the top byte (0: undefined).
    private let packed: [UInt32]
    private let reverse: [Unicode.Scalar: UInt8]

    public static let shared = Windows1257()

    public init() {
        var table = [[UInt8]](repeating: [], count: 256)
        let converter = iconv_open("UTF-8", "CP1257")
        precondition(converter != iconv_t(bitPattern: -1), "glibc iconv has no CP1257 converter")
        defer { iconv_close(converter) }
        for value in 0..<256 {
            var input: [CChar] = [CChar(bitPattern: UInt8(value))]
            var output = [CChar](repeating: 0, count: 8)
            var inLeft = 1
            var outLeft = output.count
            let converted = input.withUnsafeMutableBufferPointer { inBuffer in
                output.withUnsafeMutableBufferPointer { outBuffer in
                    var inPointer: UnsafeMutablePointer<CChar>? = inBuffer.baseAddress
                    var outPointer: UnsafeMutablePointer<CChar>? = outBuffer.baseAddress
                    return iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                }
            }
            if converted != -1, inLeft == 0 {
                table[value] = output.prefix(8 - outLeft).map { UInt8(bitPattern: $0) }
            }
            iconv(converter, nil, nil, nil, nil) // reset shift state after an error
        }
        self.packed = table.map { utf8 in
            precondition(utf8.count <= 3, "a cp1257 character is at most 3 UTF-8 bytes")
            return utf8.enumerated().reduce(UInt32(utf8.count) << 24) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        }
        var reverse: [Unicode.Scalar: UInt8] = [:]
        for value in 0x80..<256 where !table[value].isEmpty {
            if let scalar = String(decoding: table[value], as: UTF8.self).unicodeScalars.first { reverse[scalar] = UInt8(value) }
        }
        self.reverse = reverse
    }

    /// The text, or nil if it holds a byte cp1257 does not define or a NUL.
    public func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var ascii = true
        for byte in bytes {
            if byte == 0 { return nil }
            if byte >= 0x80 { ascii = false }
        }
        if ascii { return String(decoding: bytes, as: UTF8.self) }
        // Written straight into the string's storage: one allocation, where
        // a scratch array and then the string took two.
        var undefined = false
        let text = String(unsafeUninitializedCapacity: bytes.count * 3) { utf8 in
            var count = 0
            for byte in bytes {
                if byte < 0x80 {
                    utf8[count] = byte
                    count += 1
                    continue
                }
                let entry = packed[Int(byte)]
                let length = Int(entry >> 24)
                guard length > 0 else {
                    undefined = true
                    return 0
                }
                for index in 0..<length {
                    utf8[count] = UInt8(truncatingIfNeeded: entry >> (8 * UInt32(index)))
                    count += 1
                }
            }
            return count
        }
        return undefined ? nil : text
    }

    /// Whether `bytes` would decode (no NUL, no byte cp1257 leaves
    /// undefined), without building the string.
    public func isText(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte == 0 || (byte >= 0x80 && packed[Int(byte)] == 0) { return false }
        return true
    }

    public func decode(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { decode($0) }
    }

    /// The text as Windows-1257 bytes, or nil if a character has no byte there.
    public func encode(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar.value < 0x80 {
                bytes.append(UInt8(scalar.value))
                continue
            }
            guard let byte = reverse[scalar] else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// Whether `byte` has a character in cp1257.
    public func defines(_ byte: UInt8) -> Bool { byte < 0x80 || packed[Int(byte)] != 0 }
}
