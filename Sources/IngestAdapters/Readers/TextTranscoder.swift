import Glibc

/// Turns a byte stream in any charset iconv knows (`windows-1252`,
/// `iso-8859-13`, `utf-16` with its BOM, …) into UTF-8, chunk by chunk, so
/// libcsv and the field rules see UTF-8 whatever a sister site exports.
///
/// A sequence split between two chunks is carried to the next one; a byte
/// sequence that is not valid in the charset becomes U+FFFD, which the field
/// rules then reject as `bad_encoding` with the record's line and key.
public final class TextTranscoder {
    public let charset: String
    private let converter: iconv_t
    private var carry: [UInt8] = []

    /// nil when iconv does not know `charset`.
    public init?(charset: String) {
        guard let converter = iconv_open("UTF-8", charset), converter != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        self.charset = charset
        self.converter = converter
    }

    deinit { iconv_close(converter) }

    /// Whether `charset` is a name iconv knows (a mapping names it at load time).
    public static func knows(_ charset: String) -> Bool { TextTranscoder(charset: charset) != nil }

    /// UTF-8 treats the charset's own UTF-8 as nothing to do.
    public static func isUTF8(_ charset: String) -> Bool {
        ["UTF-8", "UTF8"].contains(charset.uppercased().replacingOccurrences(of: "_", with: "-"))
    }

    /// The charset a byte order mark names, and the mark's length.
    public static func byteOrderMark(_ bytes: some Collection<UInt8>) -> (charset: String, length: Int)? {
        let head = Array(bytes.prefix(3))
        if head.starts(with: [0xFF, 0xFE]) { return ("UTF-16LE", 2) }
        if head.starts(with: [0xFE, 0xFF]) { return ("UTF-16BE", 2) }
        return nil
    }

    /// The UTF-8 of `chunk`; an incomplete sequence at its end waits for the next chunk (or `finish`).
    public func convert(_ chunk: UnsafeRawBufferPointer) -> [UInt8] {
        var input = carry
        input.append(contentsOf: chunk)
        carry.removeAll(keepingCapacity: true)
        var output = [UInt8](repeating: 0, count: input.count * 3 + 16)
        var produced = 0
        input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inBuffer.baseAddress!).assumingMemoryBound(to: CChar.self)
                var inLeft = inBuffer.count
                var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuffer.baseAddress!).assumingMemoryBound(to: CChar.self)
                var outLeft = outBuffer.count
                while inLeft > 0 {
                    let result = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                    if result != -1 { break }
                    switch errno {
                    case EINVAL: // incomplete sequence at the end: keep it for the next chunk
                        carry = Array(UnsafeRawBufferPointer(start: inPointer!, count: inLeft))
                        inLeft = 0
                    case EILSEQ: // not valid in the charset: U+FFFD, and go on after one unit
                        let skip = charset.uppercased().hasPrefix("UTF-16") ? min(2, inLeft) : 1
                        inPointer! += skip
                        inLeft -= skip
                        for byte: UInt8 in [0xEF, 0xBF, 0xBD] where outLeft > 0 {
                            outPointer!.pointee = CChar(bitPattern: byte)
                            outPointer! += 1
                            outLeft -= 1
                        }
                    default:
                        inLeft = 0 // E2BIG cannot happen: the output holds three bytes per input byte
                    }
                }
                produced = outBuffer.count - outLeft
            }
        }
        output.removeLast(output.count - produced)
        return output
    }

    /// What is left at the end of the stream: an incomplete sequence is invalid.
    public func finish() -> [UInt8] {
        defer { carry.removeAll() }
        return carry.isEmpty ? [] : [0xEF, 0xBF, 0xBD]
    }

    /// A whole sample in one go (recognising a file by its header).
    public static func utf8(_ bytes: some Collection<UInt8>, charset: String) -> [UInt8]? {
        guard let transcoder = TextTranscoder(charset: charset) else { return nil }
        let array = Array(bytes)
        return array.withUnsafeBytes { transcoder.convert($0) }
    }
}
