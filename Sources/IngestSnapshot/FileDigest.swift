import Crypto
import Foundation

/// SHA-256 of a file, streamed in fixed chunks so a 700 MB feed costs no memory.
public enum FileDigest {
    public static func sha256(path: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXFailure(operation: "open", path: path) }
        defer { close(descriptor) }
        var hasher = SHA256()
        let chunkSize = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, chunkSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXFailure(operation: "read", path: path)
            }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}

/// A failed system call, with the path it was about and errno's text.
public struct POSIXFailure: Error, Sendable, CustomStringConvertible {
    public let operation: String
    public let path: String
    public let code: Int32

    public init(operation: String, path: String, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    public var isDiskFull: Bool { code == ENOSPC || code == EDQUOT }
    /// The location cannot take files: forbidden, read-only, or not there.
    public var isCannotCreate: Bool { [EACCES, EPERM, EROFS, ENOENT, ENOTDIR].contains(code) }

    public var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
}
