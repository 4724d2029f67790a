import Foundation

/// A file found in the feeds folder, with the first bytes adapters sniff to
/// claim it. Adapters are chosen by content, so reading the sample is the
/// only I/O done before the plan is made.
public struct FeedFile: Sendable, Hashable {
    /// Absolute path, for opening (`FeedPath.openForReading`).
    public let path: String
    /// Name relative to the feeds folder, for messages, rejects and the
    /// manifest; escaped where the file system's bytes are not plain text.
    public let name: String
    /// Keeps open a file whose name is not UTF-8: `path` reaches it through its descriptor.
    public let held: HeldFile?
    public let size: Int64
    /// Up to `sampleSize` bytes from the start of the file.
    public let sample: [UInt8]

    public static let sampleSize = 4096

    public static func == (a: FeedFile, b: FeedFile) -> Bool { a.path == b.path && a.name == b.name && a.size == b.size }
    public func hash(into hasher: inout Hasher) { hasher.combine(path) }

    public init(path: String, name: String, size: Int64, sample: [UInt8], held: HeldFile? = nil) {
        self.held = held
        self.path = path
        self.name = name
        self.size = size
        self.sample = sample
    }

    /// Reads the sample of `path`; symbolic links are not followed.
    public static func open(path: String, name: String, held: HeldFile? = nil) throws(FeedFailure) -> FeedFile {
        let descriptor = try FeedPath.openForReading(path)
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw FeedFailure(reason: .unreadable, message: "not a regular file")
        }
        var sample = [UInt8](repeating: 0, count: sampleSize)
        let count = sample.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, sampleSize) }
        guard count >= 0 else {
            throw FeedFailure(reason: .unreadable, message: "cannot read: \(String(cString: strerror(errno)))")
        }
        return FeedFile(path: path, name: name, size: Int64(info.st_size), sample: Array(sample.prefix(count)), held: held)
    }

    /// The sample without a leading UTF-8 byte order mark.
    public var sampleWithoutBOM: ArraySlice<UInt8> {
        sample.starts(with: [0xEF, 0xBB, 0xBF]) ? sample.dropFirst(3) : sample[...]
    }

    /// The sample's first line, without BOM and line terminator (LF, CRLF or a lone CR).
    public var firstLine: ArraySlice<UInt8> {
        let body = sampleWithoutBOM
        let end = body.firstIndex { $0 == 10 || $0 == 13 } ?? body.endIndex
        return body[..<end]
    }

    /// The sample is the whole file: its last row is complete.
    public var sampleIsWholeFile: Bool { Int64(sample.count) >= size }
}

import IngestCore
