import Foundation

/// A file found in the feeds folder, with the first bytes adapters sniff to
/// claim it. Adapters are chosen by content, so reading the sample is the
/// only I/O done before the plan is made.
public struct FeedFile: Sendable, Hashable {
    /// Absolute path, for opening.
    public let path: String
    /// Name relative to the feeds folder, for messages, rejects and the manifest.
    public let name: String
    public let size: Int64
    /// Up to `sampleSize` bytes from the start of the file.
    public let sample: [UInt8]

    public static let sampleSize = 4096

    public init(path: String, name: String, size: Int64, sample: [UInt8]) {
        self.path = path
        self.name = name
        self.size = size
        self.sample = sample
    }

    /// Reads the sample of `path`; symbolic links are not followed.
    public static func open(path: String, name: String) throws(FeedFailure) -> FeedFile {
        let descriptor = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FeedFailure(reason: .unreadable, message: "cannot open: \(String(cString: strerror(errno)))")
        }
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
        return FeedFile(path: path, name: name, size: Int64(info.st_size), sample: Array(sample.prefix(count)))
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
