import CYAJL
import Foundation
import IngestCore

/// One JSON value that is not a container, lent for the length of a callback.
public enum JSONScalar {
    case null
    case bool(Bool)
    /// The number as written: exact, never through a double.
    case number(UnsafeBufferPointer<UInt8>)
    /// The string's UTF-8, escapes resolved.
    case string(UnsafeBufferPointer<UInt8>)
}

/// What a `StreamingJSONParser` reports, in document order. Each method
/// returns false to stop the parse (a reader that wanted only the first record).
public protocol JSONStreamHandler: AnyObject {
    func scalar(_ value: JSONScalar) -> Bool
    func key(_ name: UnsafeBufferPointer<UInt8>) -> Bool
    func startContainer(isArray: Bool) -> Bool
    func endContainer() -> Bool
}

/// JSON and JSON Lines through YAJL, a streaming C parser (Debian's
/// libyajl): the file is pushed through in 256 KiB chunks, so memory stays
/// flat whatever its size; only a token split across two chunks is buffered,
/// and that buffer is capped (CYAJL/shim.h). Strings must be UTF-8 (YAJL
/// checks). Nesting deeper than `ParseLimits.elementDepth` stops the file.
public final class StreamingJSONParser {
    private typealias P = StreamingJSONParser
    /// Why a parse ended early.
    public enum Stop: Error {
        /// The handler asked to stop.
        case byHandler
        /// The text is not JSON (or the file ends inside a value): YAJL's words.
        case malformed(String)
        /// Nested past the limit.
        case tooDeep
    }

    private final class Context {
        let handler: any JSONStreamHandler
        var depth = 0
        var tooDeep = false
        init(handler: any JSONStreamHandler) { self.handler = handler }
    }

    private static func context(_ pointer: UnsafeMutableRawPointer?) -> Context {
        Unmanaged<Context>.fromOpaque(pointer!).takeUnretainedValue()
    }

    private static func buffer(_ pointer: UnsafePointer<UInt8>?, _ length: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: pointer, count: length)
    }

    private static var callbacks: yajl_callbacks {
        var callbacks = yajl_callbacks()
        callbacks.yajl_null = { P.context($0).handler.scalar(.null) ? 1 : 0 }
        callbacks.yajl_boolean = { P.context($0).handler.scalar(.bool($1 != 0)) ? 1 : 0 }
        callbacks.yajl_number = { pointer, text, length in
            let bytes = text.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) }
            return P.context(pointer).handler.scalar(.number(P.buffer(bytes, length))) ? 1 : 0
        }
        callbacks.yajl_string = { P.context($0).handler.scalar(.string(P.buffer($1, $2))) ? 1 : 0 }
        callbacks.yajl_map_key = { P.context($0).handler.key(P.buffer($1, $2)) ? 1 : 0 }
        callbacks.yajl_start_map = { P.start(P.context($0), isArray: false) }
        callbacks.yajl_start_array = { P.start(P.context($0), isArray: true) }
        callbacks.yajl_end_map = { P.end(P.context($0)) }
        callbacks.yajl_end_array = { P.end(P.context($0)) }
        return callbacks
    }

    private static func start(_ context: Context, isArray: Bool) -> Int32 {
        context.depth += 1
        if context.depth > ParseLimits.elementDepth {
            context.tooDeep = true
            return 0
        }
        return context.handler.startContainer(isArray: isArray) ? 1 : 0
    }

    private static func end(_ context: Context) -> Int32 {
        context.depth -= 1
        return context.handler.endContainer() ? 1 : 0
    }

    public init() {}

    /// One JSON document: the whole file. A UTF-8 byte order mark is skipped.
    public func parse(_ file: FeedFile, handler: any JSONStreamHandler) throws {
        let stream = try file.openStream()
        let chunkSize = 256 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { buffer.deallocate() }
        try withParser(handler: handler) { push in
            var first = true
            while true {
                let count = try stream.read(into: buffer.baseAddress!, count: chunkSize)
                if count == 0 { return }
                var chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                if first {
                    first = false
                    if chunk.starts(with: [0xEF, 0xBB, 0xBF]) { chunk = UnsafeRawBufferPointer(rebasing: chunk[3...]) }
                }
                try push(chunk)
            }
        }
    }

    /// One JSON document held in `bytes` (a JSON Lines line).
    public func parse(_ bytes: UnsafeBufferPointer<UInt8>, handler: any JSONStreamHandler) throws {
        try withParser(handler: handler) { push in try push(UnsafeRawBufferPointer(bytes)) }
    }

    /// Runs a fresh YAJL handle over what `produce` pushes, then completes it.
    private func withParser(handler: any JSONStreamHandler,
                            produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        let context = Context(handler: handler)
        var callbacks = Self.callbacks
        let pointer = Unmanaged.passUnretained(context).toOpaque()
        guard let handle = ingest_yajl_alloc(&callbacks, pointer) else { throw Stop.malformed("YAJL could not start") }
        defer { yajl_free(handle) }
        func check(_ status: yajl_status) throws {
            switch status {
            case yajl_status_ok: return
            case yajl_status_client_canceled: throw context.tooDeep ? Stop.tooDeep : Stop.byHandler
            default:
                let message: String
                if let text = yajl_get_error(handle, 0, nil, 0) {
                    message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
                    yajl_free_error(handle, text)
                } else {
                    message = "not JSON"
                }
                throw Stop.malformed(message)
            }
        }
        try withExtendedLifetime(context) {
            try produce { chunk in
                guard let start = chunk.baseAddress, !chunk.isEmpty else { return }
                try check(yajl_parse(handle, start.assumingMemoryBound(to: UInt8.self), chunk.count))
            }
            try check(yajl_complete_parse(handle))
        }
    }
}

extension RejectReason {
    /// JSON that does not parse: a truncated file keeps the records before the break.
    public static let malformedJSON = RejectReason(rawValue: "malformed_json")
    /// A mapped path or pointer that reaches an object, an array or an element with children, not a value.
    public static let notAValue = RejectReason(rawValue: "not_a_value")
}
