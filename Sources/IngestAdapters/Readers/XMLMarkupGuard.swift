import Glibc
import IngestCore

/// Reads the bytes of an XML feed before libxml2 does and stops the file at
/// the first shape past `ParseLimits`: too many attributes in a tag, an
/// attribute value, a tag or a text run too large. libxml2 must never see
/// such a tag whole: it would spend minutes on it (the quadratic duplicate-
/// attribute check of 2.9.14) or hold it all in memory.
///
/// A lexer of markup boundaries only, not a parser: it tells tags, quoted
/// values, comments, CDATA sections and processing instructions apart, and
/// leaves well-formedness to libxml2. It keeps its state across chunks, so a
/// tag may straddle any number of reads.
struct XMLMarkupGuard {
    private enum State {
        case text
        /// Just after `<`.
        case open
        case startTag
        case value(quote: UInt8)
        case endTag
        /// After `<!`: a comment, CDATA or a declaration, told apart by what follows.
        case bang(seen: Int)
        case comment(dashes: Int)
        case cdata(brackets: Int)
        case declaration
        case instruction(question: Bool)
    }

    private var state = State.text
    /// The line the current chunk starts on; a failure's line is counted from it.
    private var line = 1
    private var runBytes = 0
    private var attributes = 0
    private var tagBytes = 0
    private var valueBytes = 0
    /// Whether the tag's `<` started a CDATA section: `<![CDATA[` is checked byte by byte.
    private static let cdataOpening = Array("[CDATA[".utf8)

    /// Scans the next bytes of the file; the failure when they go past a limit.
    ///
    /// Text, attribute values and end tags, most of a feed's bytes, are crossed
    /// with `memchr` to the byte that ends them, a start tag's names and
    /// spaces in a loop of their own; only the rarer constructs go byte by byte. (Byte by byte throughout, this scan
    /// was the largest single cost of a national run.)
    mutating func scan(_ raw: UnsafeRawBufferPointer) -> FeedFailure? {
        guard let start = raw.baseAddress, raw.count > 0 else { return nil }
        let bytes = start.assumingMemoryBound(to: UInt8.self)
        let end = raw.count
        var index = 0
        while index < end {
            switch state {
            case .text:
                let (found, length) = Self.distance(to: UInt8(ascii: "<"), from: bytes + index, count: end - index)
                if runBytes + length > ParseLimits.textBytes {
                    return exceeded("text_bytes", ParseLimits.textBytes, "text between two tags is longer than", bytes: true,
                                    in: bytes, at: index + ParseLimits.textBytes - runBytes)
                }
                index += length
                if found {
                    state = .open
                    runBytes = 0
                    index += 1
                } else {
                    runBytes += length
                }
                continue
            case .value(let quote):
                let (found, length) = Self.distance(to: quote, from: bytes + index, count: end - index)
                // The first byte past either limit, if this run reaches it; the value's limit is named first.
                let valueEnd = ParseLimits.attributeBytes - valueBytes
                let tagEnd = ParseLimits.tagBytes - tagBytes
                if valueEnd < length || tagEnd < length {
                    if valueEnd <= tagEnd {
                        return exceeded("attribute_bytes", ParseLimits.attributeBytes, "an attribute value is longer than", bytes: true,
                                        in: bytes, at: index + valueEnd)
                    }
                    return exceeded("tag_bytes", ParseLimits.tagBytes, "a start tag is longer than", bytes: true, in: bytes, at: index + tagEnd)
                }
                valueBytes += length
                tagBytes += length
                index += length
                if found {
                    tagBytes += 1
                    state = .startTag
                    index += 1
                }
                continue
            case .startTag:
                // Names and the spaces between them, to the next byte that changes the state: crossed
                // in a tight loop (one by one through both switches, tag interiors were half the scan).
                var run = 0
                while index + run < end, !Self.isTagMark(bytes[index + run]) { run += 1 }
                if run > 0 {
                    let room = ParseLimits.tagBytes - tagBytes
                    if run > room {
                        return exceeded("tag_bytes", ParseLimits.tagBytes, "a start tag is longer than", bytes: true, in: bytes, at: index + room)
                    }
                    tagBytes += run
                    index += run
                    continue
                }
            case .endTag:
                let (found, length) = Self.distance(to: UInt8(ascii: ">"), from: bytes + index, count: end - index)
                tagBytes += length
                index += length
                if found {
                    tagBytes += 1
                    state = .text
                    index += 1
                }
                continue
            default:
                break
            }
            let byte = bytes[index]
            switch state {
            case .text, .value, .endTag:
                preconditionFailure("crossed above")
            case .open:
                switch byte {
                case UInt8(ascii: "!"): state = .bang(seen: 0)
                case UInt8(ascii: "?"): state = .instruction(question: false)
                case UInt8(ascii: "/"): state = .endTag
                default:
                    state = .startTag
                    attributes = 0
                    tagBytes = 2
                }
            case .startTag:
                tagBytes += 1
                if tagBytes > ParseLimits.tagBytes {
                    return exceeded("tag_bytes", ParseLimits.tagBytes, "a start tag is longer than", bytes: true, in: bytes, at: index)
                }
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    state = .value(quote: byte)
                    valueBytes = 0
                case UInt8(ascii: "="):
                    attributes += 1
                    if attributes > ParseLimits.attributesPerElement {
                        return exceeded("attributes_per_element", ParseLimits.attributesPerElement, "an element has more attributes than",
                                        in: bytes, at: index)
                    }
                case UInt8(ascii: ">"): state = .text
                default: break
                }
            case .bang(let seen):
                if seen == 0, byte == UInt8(ascii: "-") {
                    state = .bang(seen: -1)
                } else if seen == -1 {
                    state = byte == UInt8(ascii: "-") ? .comment(dashes: 0) : .declaration
                } else if seen >= 0, seen < Self.cdataOpening.count, byte == Self.cdataOpening[seen] {
                    state = seen + 1 == Self.cdataOpening.count ? .cdata(brackets: 0) : .bang(seen: seen + 1)
                } else {
                    state = byte == UInt8(ascii: ">") ? .text : .declaration
                }
                runBytes = 0
            case .comment(let dashes):
                if byte == UInt8(ascii: ">"), dashes >= 2 {
                    state = .text
                } else {
                    state = .comment(dashes: byte == UInt8(ascii: "-") ? dashes + 1 : 0)
                    if let failure = countRun("a comment", in: bytes, at: index) { return failure }
                }
            case .cdata(let brackets):
                if byte == UInt8(ascii: ">"), brackets >= 2 {
                    state = .text
                    runBytes = 0
                } else {
                    state = .cdata(brackets: byte == UInt8(ascii: "]") ? brackets + 1 : 0)
                    if let failure = countRun("a CDATA section", in: bytes, at: index) { return failure }
                }
            case .declaration:
                // A DOCTYPE: libxml2 refuses it at once (`unsafe_xml`); only its size is watched here.
                if byte == UInt8(ascii: ">") {
                    state = .text
                } else if let failure = countRun("a declaration", in: bytes, at: index) {
                    return failure
                }
            case .instruction(let question):
                if byte == UInt8(ascii: ">"), question {
                    state = .text
                } else {
                    state = .instruction(question: byte == UInt8(ascii: "?"))
                    if let failure = countRun("a processing instruction", in: bytes, at: index) { return failure }
                }
            }
            index += 1
        }
        line += Self.newlines(in: bytes, count: end)
        return nil
    }

    /// The bytes a start tag's scan stops at: a quote opens a value, `=` counts an attribute, `>` ends the tag.
    @inline(__always)
    private static func isTagMark(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "=") || byte == UInt8(ascii: ">")
    }

    /// Whether `byte` occurs in the `count` bytes from `start`, and how many bytes come before it (all of them if not).
    private static func distance(to byte: UInt8, from start: UnsafePointer<UInt8>, count: Int) -> (found: Bool, length: Int) {
        guard let hit = memchr(start, Int32(byte), count) else { return (false, count) }
        return (true, UnsafeRawPointer(hit) - UnsafeRawPointer(start))
    }

    /// Line feeds in `count` bytes, eight at a time: every byte of a feed
    /// passes here, and a byte-at-a-time count was 40 % of the scan. A byte
    /// of `word ^ 0x0A…` is zero exactly where a line feed was; the
    /// expression below sets its high bit for those bytes alone.
    static func newlines(in bytes: UnsafePointer<UInt8>, count: Int) -> Int {
        let raw = UnsafeRawPointer(bytes)
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let newline: UInt64 = 0x0A0A_0A0A_0A0A_0A0A
        var lines = 0
        var offset = 0
        while offset &+ 8 <= count {
            let x = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ newline
            lines &+= (~(((x & low7) &+ low7) | x | low7)).nonzeroBitCount
            offset &+= 8
        }
        while offset < count {
            if bytes[offset] == 10 { lines &+= 1 }
            offset &+= 1
        }
        return lines
    }

    private mutating func countRun(_ what: String, in bytes: UnsafePointer<UInt8>, at index: Int) -> FeedFailure? {
        runBytes += 1
        guard runBytes > ParseLimits.textBytes else { return nil }
        return exceeded("text_bytes", ParseLimits.textBytes, "\(what) is longer than", bytes: true, in: bytes, at: index)
    }

    /// The failure at byte `index` of this chunk, on the line that byte is on.
    private func exceeded(_ name: String, _ limit: Int, _ what: String, bytes: Bool = false,
                          in chunk: UnsafePointer<UInt8>, at index: Int) -> FeedFailure {
        ParseLimits.exceeded(name, limit: limit, what, bytes: bytes, line: line + Self.newlines(in: chunk, count: index + 1))
    }
}
