import Foundation

/// One input to an adapter: a file found in the feeds folder, or bytes in
/// memory, with the first bytes adapters sniff to claim it. Adapters are
/// chosen by content, so reading the sample is the only I/O done before the
/// plan is made; they read the rest through `openStream()`.
public struct FeedFile: Sendable, Hashable {
    /// Where the bytes are: a path, or the bytes themselves.
    public enum Content: Sendable {
        case file(path: String)
        case bytes([UInt8])
    }

    public let content: Content
    /// Name relative to the feeds folder, for messages, rejects and the
    /// manifest; escaped where the file system's bytes are not plain text.
    public let name: String
    /// Keeps open a file whose name is not UTF-8: `path` reaches it through its descriptor.
    public let held: HeldFile?
    public let size: Int64
    /// Up to `sampleSize` bytes from the start of the file.
    public let sample: [UInt8]
    /// Sees the bytes of the streams opened on this file (see `observed(by:)`).
    public private(set) var observer: (any FeedByteObserver)?
    /// The file's modification time (seconds since 1970), when it is a
    /// file: the export time of a file without a date of its own
    /// (`[export] date = "modified"`, FEEDS.md §12.1).
    public private(set) var modifiedAt: Int64?
    /// The time of the run that reads the file (`[export] date = "run"`);
    /// nil outside a run, where the time now stands for it.
    public var runTime: ExportTimestamp?

    public static let sampleSize = 4096

    public static func == (a: FeedFile, b: FeedFile) -> Bool { a.path == b.path && a.name == b.name && a.size == b.size }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    public init(path: String, name: String, size: Int64, sample: [UInt8], held: HeldFile? = nil) {
        self.held = held
        self.content = .file(path: path)
        self.name = name
        self.size = size
        self.sample = sample
    }

    /// Bytes in memory as a feed named `name`.
    public init(name: String, bytes: [UInt8]) {
        self.held = nil
        self.content = .bytes(bytes)
        self.name = name
        self.size = Int64(bytes.count)
        self.sample = Array(bytes.prefix(Self.sampleSize))
    }

    /// The file's path; nil for bytes in memory. For the pipeline's own
    /// bookkeeping (its digest, its name in the manifest), never for parsing.
    public var path: String? {
        if case .file(let path) = content { return path }
        return nil
    }

    /// The whole input from its first byte, for one pass of a reader.
    public func openStream() throws(FeedFailure) -> FeedByteStream {
        let stream: FeedByteStream
        switch content {
        case .file(let path): stream = try FeedByteStream(path: path, observer: observer)
        case .bytes(let bytes): stream = FeedByteStream(bytes: bytes, observer: observer)
        }
        observer?.streamOpened()
        return stream
    }

    /// The same file, its streams shown to `observer` as an adapter reads
    /// them: the pipeline takes a feed's SHA-256 from the parse's own pass
    /// instead of reading the file a second time.
    public func observed(by observer: any FeedByteObserver) -> FeedFile {
        var file = self
        file.observer = observer
        return file
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
        var file = FeedFile(path: path, name: name, size: Int64(info.st_size), sample: Array(sample.prefix(count)), held: held)
        file.modifiedAt = Int64(info.st_mtim.tv_sec)
        return file
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
