import Foundation
import NIOConcurrencyHelpers

/// Where the access log's lines go: a file opened `O_APPEND`, so each line
/// is one `write` at the file's end whatever happened to the file
/// meanwhile (a `copytruncate` rotation once left 1,943 NUL bytes at the
/// head of a file opened without it, the old offset kept), and opened again
/// on SIGHUP, logrotate's `postrotate`, so the lines after a rotation go to
/// the new file and none is lost between the two.
final class AccessLog: Sendable {
    enum Target: Sendable, Equatable {
        case standardOutput
        case file(String)
    }

    struct OpenFailure: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "--access-log \(path) cannot be opened for appending: \(reason)" }
    }

    let target: Target
    private let descriptor: NIOLockedValueBox<Int32>

    init(_ target: Target) throws(OpenFailure) {
        self.target = target
        switch target {
        case .standardOutput: descriptor = NIOLockedValueBox(STDOUT_FILENO)
        case .file(let path): descriptor = NIOLockedValueBox(try Self.open(path))
        }
    }

    deinit {
        if case .file = target { close(descriptor.withLockedValue { $0 }) }
    }

    private static func open(_ path: String) throws(OpenFailure) -> Int32 {
        let descriptor = Foundation.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else { throw OpenFailure(path: path, reason: String(cString: strerror(errno))) }
        return descriptor
    }

    /// One line, written whole by one `write` (retried only for what a
    /// short write left); a failed write is dropped, never retried for ever:
    /// a full disk must not stop the answers.
    func write(_ line: [UInt8]) {
        descriptor.withLockedValue { descriptor in
            line.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return
                    }
                    offset += written
                }
            }
        }
    }

    /// Opens the path again (after logrotate moved the file away); the old
    /// descriptor is closed once no line is being written to it. On a
    /// failure the old file keeps the lines, and the reason is returned.
    func reopen() -> OpenFailure? {
        guard case .file(let path) = target else { return nil }
        let fresh: Int32
        do { fresh = try Self.open(path) } catch { return error }
        let old = descriptor.withLockedValue { descriptor in
            defer { descriptor = fresh }
            return descriptor
        }
        close(old)
        return nil
    }
}
