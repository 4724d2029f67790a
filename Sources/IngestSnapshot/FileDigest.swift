import IngestCore
import Crypto
import Foundation

/// SHA-256 of a file, streamed in fixed chunks so a 700 MB feed costs no memory.
public enum FileDigest {
    public static func sha256(path: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXFailure(operation: "open", path: path) }
        defer { close(descriptor) }
        return try sha256 { buffer, count in try FileIO.read(descriptor, into: buffer, count: count, path: path) }
    }

    /// SHA-256 of what `read` hands over (up to `count` bytes into the
    /// buffer per call, 0 at the end): a feed's stream, whatever holds it.
    public static func sha256(read: (UnsafeMutableRawPointer, Int) throws -> Int) throws -> String {
        var running = Running()
        let chunkSize = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try read(buffer.baseAddress!, chunkSize)
            if count == 0 { break }
            running.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return running.hex
    }

    /// A digest fed piece by piece, by whoever holds the bytes.
    public struct Running {
        private var hasher = SHA256()

        public init() {}

        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            hasher.update(bufferPointer: bytes)
        }

        /// Lower-case hex, as the manifest writes it.
        public var hex: String {
            hasher.finalize().map { String(format: "%02x", $0) }.joined()
        }
    }
}
