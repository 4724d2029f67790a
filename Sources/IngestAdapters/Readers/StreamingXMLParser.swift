import CLibXML2
import Foundation
import IngestCore

/// A name of an element or attribute as libxml2 hands it over: pointers valid
/// only during the callback, compared without building Swift strings (the
/// hot path of a 700 MB Noom file is millions of these).
public struct XMLName {
    let local: UnsafePointer<xmlChar>
    let uri: UnsafePointer<xmlChar>?

    /// True when the local name is `name` and the namespace is `namespace`
    /// (nil: any namespace or none).
    @inline(__always)
    public func `is`(_ name: StaticString, in namespace: StaticString? = nil) -> Bool {
        // The first byte settles most mismatches without a call into libc:
        // a Noom item's seven child names were a strcmp chain per element.
        guard local.pointee == name.utf8Start.pointee, strcmp(UnsafeRawPointer(local).assumingMemoryBound(to: CChar.self),
                     UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)) == 0 else { return false }
        guard let namespace else { return true }
        guard let uri else { return false }
        return strcmp(UnsafeRawPointer(uri).assumingMemoryBound(to: CChar.self),
                      UnsafeRawPointer(namespace.utf8Start).assumingMemoryBound(to: CChar.self)) == 0
    }

    public func inNamespace(_ namespace: String?) -> Bool {
        guard let namespace else { return true }
        guard let uri else { return namespace.isEmpty }
        return String(cString: uri) == namespace
    }

    public var localName: String { String(cString: local) }
}

/// The attributes of one start tag (libxml2's SAX2 five-pointer layout).
public struct XMLAttributes {
    let base: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    let count: Int

    /// The value of the attribute with this local name and no namespace.
    public func value(_ name: StaticString) -> String? {
        guard let base else { return nil }
        for index in 0..<count {
            let entry = base + index * 5
            guard let local = entry[0], entry[2] == nil,
                  strcmp(UnsafeRawPointer(local).assumingMemoryBound(to: CChar.self),
                         UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)) == 0,
                  let start = entry[3], let end = entry[4] else { continue }
            return String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
        }
        return nil
    }

    /// The same for a name known only at run time (mapped XML feeds).
    public func value(named name: String) -> String? {
        guard let base else { return nil }
        for index in 0..<count {
            let entry = base + index * 5
            guard let local = entry[0], entry[2] == nil, String(cString: local) == name,
                  let start = entry[3], let end = entry[4] else { continue }
            return String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
        }
        return nil
    }
}

/// What a format-specific reader does with the SAX2 events. Text is not an
/// event: a reader that wants an element's text starts the parser's
/// `text` capture in `startElement` and reads it in `endElement`.
public protocol XMLStreamHandler: AnyObject {
    func startElement(_ name: XMLName, attributes: XMLAttributes, line: Int)
    func endElement(_ name: XMLName)
}

extension RejectReason {
    public static let malformedXML = RejectReason(rawValue: "malformed_xml")
    public static let unsafeXML = RejectReason(rawValue: "unsafe_xml")
}

/// libxml2's SAX2 parser over a file this code reads itself, through a read
/// callback and one fixed buffer: memory stays flat whatever the size, and
/// libxml2 is never handed a path or URL it could open on its own.
///
/// Feeds are untrusted. The parser runs with `XML_PARSE_NONET`, without
/// `XML_PARSE_NOENT` or `XML_PARSE_DTDLOAD`, and any DOCTYPE stops it at
/// once: such a document is rejected `unsafe_xml` before a single entity
/// could be declared, let alone expanded (XXE, billion laughs).
public final class StreamingXMLParser {
    public static let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_COMPACT.rawValue)
    public static let chunkSize = 256 * 1024
    static let firstChunkSize = 16 * 1024

    private final class Context {
        /// Strong `let`s: the callbacks reach the context as a guaranteed
        /// reference, through which a `let` needs no retain. (unowned(unsafe)
        /// looked cheaper, but every use of it copies out a strong reference.)
        let handler: XMLStreamHandler
        let text: XMLTextCapture
        var parser: xmlParserCtxtPtr?
        var unsafeReason: String?
        /// A shape past `ParseLimits`, found in the bytes or in the nesting.
        var limitExceeded: FeedFailure?
        var markup = XMLMarkupGuard()
        var depth = 0
        var stoppedByHandler = false
        /// The first error libxml2 raised: later ones are often its echoes.
        var firstError: (message: String, line: Int)?

        /// The file, read in chunks libxml2 takes from in pieces of about 4 KB.
        let stream: FeedByteStream
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: StreamingXMLParser.chunkSize, alignment: 16)
        var bufferStart = 0
        var bufferEnd = 0
        var nextRead = StreamingXMLParser.firstChunkSize
        var readFailure: FeedFailure?

        init(handler: XMLStreamHandler, text: XMLTextCapture, stream: FeedByteStream) {
            self.handler = handler
            self.text = text
            self.stream = stream
        }

        deinit { buffer.deallocate() }

        /// libxml2's read callback: up to `length` bytes, 0 at the end, -1 on an error.
        func read(into destination: UnsafeMutableRawPointer, length: Int) -> Int32 {
            if bufferStart == bufferEnd {
                let count: Int
                do { count = try stream.read(into: buffer, count: nextRead) } catch {
                    readFailure = error
                    return -1
                }
                // A small first chunk: a header reader stops after a few elements.
                nextRead = StreamingXMLParser.chunkSize
                bufferStart = 0
                bufferEnd = count
                if count == 0 { return 0 }
                // libxml2 gets none of a chunk that goes past a limit: the tag is never parsed.
                if let failure = markup.scan(UnsafeRawBufferPointer(start: buffer, count: count)) {
                    limitExceeded = failure
                    bufferEnd = 0
                    return -1
                }
            }
            let count = min(length, bufferEnd - bufferStart)
            destination.copyMemory(from: buffer + bufferStart, byteCount: count)
            bufferStart += count
            return Int32(count)
        }

        var line: Int { parser.map { Int(xmlSAX2GetLineNumber(UnsafeMutableRawPointer($0))) } ?? 0 }
    }

    private var context: Context?
    /// The text of the element the handler asked for (see `XMLStreamHandler`).
    public let text = XMLTextCapture()

    public init() {}

    /// Asks the parser to stop after the current callback (a header reader
    /// that has what it needs). Not an error.
    public func stop() {
        guard let context, let parser = context.parser else { return }
        context.stoppedByHandler = true
        xmlStopParser(parser)
    }

    /// The line the parser is on, for messages from the handler.
    public var currentLine: Int { context?.line ?? 0 }

    /// libxml2 pulls the document through a read callback (`xmlCreateIOParserCtxt`)
    /// rather than being pushed chunks: the push parser scans ahead for the end
    /// of every tag and text before it parses them, about an eighth of its
    /// instructions on a Noom feed (callgrind, 3 feeds: 417 M against 365 M).
    public func parse(_ file: FeedFile, handler: XMLStreamHandler) throws(FeedFailure) {
        let context = Context(handler: handler, text: text, stream: try file.openStream())
        text.end()
        self.context = context
        defer { self.context = nil }
        var sax = Self.makeHandler()
        let userData = Unmanaged.passUnretained(context).toOpaque()
        let read: xmlInputReadCallback = { context, destination, length in
            guard let context, let destination, length > 0 else { return 0 }
            return Unmanaged<Context>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.read(into: destination, length: Int(length)) }
        }
        guard let parser = xmlCreateIOParserCtxt(&sax, userData, read, nil, userData, XML_CHAR_ENCODING_NONE) else {
            throw FeedFailure(reason: .unreadable, message: "libxml2 could not create a parser")
        }
        context.parser = parser
        defer {
            xmlFreeParserCtxt(parser)
            context.parser = nil
        }
        xmlCtxtUseOptions(parser, Self.options)
        let code = xmlParseDocument(parser)

        if let reason = context.unsafeReason {
            throw FeedFailure(reason: .unsafeXML, message: reason, line: context.line)
        }
        if let failure = context.limitExceeded { throw failure }
        if let failed = context.readFailure {
            throw FeedFailure(reason: failed.reason, message: failed.message, line: context.line)
        }
        if context.stoppedByHandler { return }
        if code != 0 || parser.pointee.wellFormed == 0 {
            if let first = context.firstError {
                throw FeedFailure(reason: .malformedXML, message: "not well-formed XML: \(first.message)", line: first.line)
            }
            throw Self.failure(parser)
        }
    }

    private static func failure(_ parser: xmlParserCtxtPtr) -> FeedFailure {
        guard let error = xmlCtxtGetLastError(parser) else {
            return FeedFailure(reason: .malformedXML, message: "the document is not well-formed XML")
        }
        let message = error.pointee.message.map { String(cString: $0).trimmed } ?? "not well-formed"
        return FeedFailure(reason: .malformedXML, message: "not well-formed XML: \(message)", line: Int(error.pointee.line))
    }

    private static func makeHandler() -> xmlSAXHandler {
        var sax = xmlSAXHandler()
        sax.initialized = XML_SAX2_MAGIC
        // _withUnsafeGuaranteedRef: the context outlives the parse, and a
        // plain takeUnretainedValue() cost a retain and a release per event.
        sax.startElementNs = { context, localname, _, uri, _, _, attributeCount, _, attributes in
            guard let context, let localname else { return }
            Unmanaged<Context>.fromOpaque(context)._withUnsafeGuaranteedRef { state in
                state.depth += 1
                if state.depth > ParseLimits.elementDepth, state.limitExceeded == nil {
                    state.limitExceeded = ParseLimits.exceeded("element_depth", limit: ParseLimits.elementDepth,
                                                               "elements are nested deeper than", line: state.line)
                    if let parser = state.parser { xmlStopParser(parser) }
                    return
                }
                state.handler.startElement(XMLName(local: localname, uri: uri),
                                           attributes: XMLAttributes(base: attributes, count: Int(attributeCount)),
                                           line: state.line)
            }
        }
        sax.endElementNs = { context, localname, _, uri in
            guard let context, let localname else { return }
            Unmanaged<Context>.fromOpaque(context)._withUnsafeGuaranteedRef { state in
                state.depth -= 1
                state.handler.endElement(XMLName(local: localname, uri: uri))
            }
        }
        let characters: charactersSAXFunc = { context, text, length in
            guard let context, let text else { return }
            Unmanaged<Context>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.text.append(text, count: Int(length)) }
        }
        sax.characters = characters
        sax.cdataBlock = characters
        // Any DOCTYPE: stop before its contents are even looked at.
        sax.internalSubset = { context, _, _, _ in
            guard let context else { return }
            let state = Unmanaged<Context>.fromOpaque(context).takeUnretainedValue()
            state.unsafeReason = "the document has a DOCTYPE; DTDs and entities are refused in feeds"
            if let parser = state.parser { xmlStopParser(parser) }
        }
        sax.entityDecl = { context, _, _, _, _, _ in
            guard let context else { return }
            let state = Unmanaged<Context>.fromOpaque(context).takeUnretainedValue()
            state.unsafeReason = "the document declares entities"
            if let parser = state.parser { xmlStopParser(parser) }
        }
        // The first error is kept for the message and the parse stops there;
        // nothing goes to stderr.
        sax.serror = { context, error in
            guard let context, let error else { return }
            Unmanaged<Context>.fromOpaque(context)._withUnsafeGuaranteedRef { state in
                guard state.firstError == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
                let message = error.pointee.message.map { String(cString: $0).trimmed } ?? "not well-formed"
                state.firstError = (message, Int(error.pointee.line))
                if error.pointee.level == XML_ERR_FATAL, let parser = state.parser { xmlStopParser(parser) }
            }
        }
        return sax
    }
}
