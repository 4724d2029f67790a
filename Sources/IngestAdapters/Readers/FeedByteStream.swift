import Glibc
import IngestCore

/// A feed's bytes, front to back, whatever holds them: a file in the feeds
/// folder, or bytes in memory (the fuzzer's input, a test's, a chain's
/// part). The readers (`LineReader`, `DelimitedFileReader`,
/// `StreamingXMLParser`) take one of these, never a path, so an adapter
/// parses anything that can hand over bytes and no caller writes a scratch
/// file to feed it.
///
/// A class: it owns the descriptor and closes it when the last reader lets go.
public final class FeedByteStream {
    private enum Source {
        case descriptor(Int32)
        case memory([UInt8])
    }

    private let source: Source
    private var offset = 0
    private let observer: (any FeedByteObserver)?

    /// Opens a file through `FeedPath`'s rules (no symbolic links).
    public init(path: String, observer: (any FeedByteObserver)? = nil) throws(FeedFailure) {
        source = .descriptor(try FeedPath.openForReading(path))
        self.observer = observer
    }

    public init(bytes: [UInt8], observer: (any FeedByteObserver)? = nil) {
        source = .memory(bytes)
        self.observer = observer
    }

    deinit {
        if case .descriptor(let descriptor) = source { close(descriptor) }
    }

    /// Up to `count` bytes into `buffer`; 0 at the end. A failed read(2) is
    /// `unreadable`, with the system's reason.
    public func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(FeedFailure) -> Int {
        let got = try readSource(into: buffer, count: count)
        if let observer {
            if got > 0 { observer.read(UnsafeRawBufferPointer(start: buffer, count: got)) } else { observer.streamEnded() }
        }
        return got
    }

    private func readSource(into buffer: UnsafeMutableRawPointer, count: Int) throws(FeedFailure) -> Int {
        switch source {
        case .descriptor(let descriptor):
            do {
                return try FileIO.read(descriptor, into: buffer, count: count, path: "")
            } catch {
                throw FeedFailure(reason: .unreadable, message: "read failed: \(String(cString: strerror(error.code)))")
            }
        case .memory(let bytes):
            let taken = min(count, bytes.count - offset)
            guard taken > 0 else { return 0 }
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + offset, byteCount: taken) }
            offset += taken
            return taken
        }
    }
}

/// Sees a feed's bytes as a reader pulls them through `FeedByteStream`, in
/// order, on the reader's thread.
public protocol FeedByteObserver: AnyObject, Sendable {
    /// A stream was opened on the file (an adapter may open more than one).
    func streamOpened()
    func read(_ bytes: UnsafeRawBufferPointer)
    /// A read found the end of the stream.
    func streamEnded()
}
