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
    private var line = 1
    private var runBytes = 0
    private var attributes = 0
    private var tagBytes = 0
    private var valueBytes = 0
    /// Whether the tag's `<` started a CDATA section: `<![CDATA[` is checked byte by byte.
    private static let cdataOpening = Array("[CDATA[".utf8)

    /// Scans the next bytes of the file; the failure when they go past a limit.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> FeedFailure? {
        for byte in bytes {
            if byte == 10 { line += 1 }
            switch state {
            case .text:
                if byte == UInt8(ascii: "<") {
                    state = .open
                    runBytes = 0
                } else {
                    runBytes += 1
                    if runBytes > ParseLimits.textBytes { return exceeded("text_bytes", ParseLimits.textBytes, "text between two tags is longer than", bytes: true) }
                }
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
                if tagBytes > ParseLimits.tagBytes { return exceeded("tag_bytes", ParseLimits.tagBytes, "a start tag is longer than", bytes: true) }
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    state = .value(quote: byte)
                    valueBytes = 0
                case UInt8(ascii: "="):
                    attributes += 1
                    if attributes > ParseLimits.attributesPerElement {
                        return exceeded("attributes_per_element", ParseLimits.attributesPerElement, "an element has more attributes than")
                    }
                case UInt8(ascii: ">"): state = .text
                default: break
                }
            case .value(let quote):
                tagBytes += 1
                if byte == quote {
                    state = .startTag
                } else {
                    valueBytes += 1
                    if valueBytes > ParseLimits.attributeBytes { return exceeded("attribute_bytes", ParseLimits.attributeBytes, "an attribute value is longer than", bytes: true) }
                    if tagBytes > ParseLimits.tagBytes { return exceeded("tag_bytes", ParseLimits.tagBytes, "a start tag is longer than", bytes: true) }
                }
            case .endTag:
                tagBytes += 1
                if byte == UInt8(ascii: ">") { state = .text }
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
                if byte == UInt8(ascii: ">"), dashes >= 2 { state = .text; continue }
                state = .comment(dashes: byte == UInt8(ascii: "-") ? dashes + 1 : 0)
                if let failure = countRun("a comment") { return failure }
            case .cdata(let brackets):
                if byte == UInt8(ascii: ">"), brackets >= 2 { state = .text; runBytes = 0; continue }
                state = .cdata(brackets: byte == UInt8(ascii: "]") ? brackets + 1 : 0)
                if let failure = countRun("a CDATA section") { return failure }
            case .declaration:
                // A DOCTYPE: libxml2 refuses it at once (`unsafe_xml`); only its size is watched here.
                if byte == UInt8(ascii: ">") { state = .text; continue }
                if let failure = countRun("a declaration") { return failure }
            case .instruction(let question):
                if byte == UInt8(ascii: ">"), question { state = .text; continue }
                state = .instruction(question: byte == UInt8(ascii: "?"))
                if let failure = countRun("a processing instruction") { return failure }
            }
        }
        return nil
    }

    private mutating func countRun(_ what: String) -> FeedFailure? {
        runBytes += 1
        return runBytes > ParseLimits.textBytes ? exceeded("text_bytes", ParseLimits.textBytes, "\(what) is longer than", bytes: true) : nil
    }

    private func exceeded(_ name: String, _ limit: Int, _ what: String, bytes: Bool = false) -> FeedFailure {
        ParseLimits.exceeded(name, limit: limit, what, bytes: bytes, line: line)
    }
}
