import Foundation

/// A fresh directory under the system's temporary folder, removed when the
/// value is released. Every test that touches the file system uses one.
public final class TemporaryDirectory {
    public let path: String

    public init(_ label: String = "ingest-test") {
        let base = NSTemporaryDirectory() + "\(label)-\(getpid())-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func url(_ name: String) -> URL { URL(fileURLWithPath: "\(path)/\(name)") }

    /// Writes `bytes` to `name` (sub-folders created) and returns the full path.
    @discardableResult
    public func write(_ name: String, bytes: [UInt8]) -> String {
        let full = "\(path)/\(name)"
        try! FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try! Data(bytes).write(to: URL(fileURLWithPath: full))
        return full
    }

    /// Writes UTF-8 text.
    @discardableResult
    public func write(_ name: String, text: String) -> String { write(name, bytes: Array(text.utf8)) }

    /// Writes text encoded as Windows-1257, the way RAX files arrive.
    @discardableResult
    public func writeCP1257(_ name: String, text: String) -> String { write(name, bytes: CP1257Encoder.encode(text)) }

    public func subdirectory(_ name: String) -> String {
        let full = "\(path)/\(name)"
        try! FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        return full
    }
}

/// Encodes test text to Windows-1257 with glibc's iconv, so tests write real
/// RAX bytes rather than UTF-8 that happens to look similar.
public enum CP1257Encoder {
    public static func encode(_ text: String) -> [UInt8] {
        let converter = iconv_open("CP1257", "UTF-8")
        precondition(converter != iconv_t(bitPattern: -1))
        defer { iconv_close(converter) }
        var input = Array(text.utf8).map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: input.count * 2 + 16)
        var inLeft = input.count
        var outLeft = output.count
        input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer: UnsafeMutablePointer<CChar>? = inBuffer.baseAddress
                var outPointer: UnsafeMutablePointer<CChar>? = outBuffer.baseAddress
                let result = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                precondition(result != -1, "text has characters Windows-1257 lacks")
            }
        }
        return output.prefix(output.count - outLeft).map { UInt8(bitPattern: $0) }
    }
}
