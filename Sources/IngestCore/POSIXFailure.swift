import Glibc

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
