import IngestCore
import Foundation

/// An exclusive lock on a snapshots directory, so two runs never build and
/// switch at once. It is an `flock` on `.lock`: the kernel drops it when the
/// process dies, so a killed run never blocks the next one.
public final class SnapshotLock {
    public struct Held: Error, CustomStringConvertible {
        public let path: String
        public let holderPID: Int32?
        public var description: String {
            "another ingest run holds \(path)" + (holderPID.map { " (PID \($0))" } ?? "")
        }
    }

    private let descriptor: Int32
    public let path: String

    public init(directory: SnapshotDirectory) throws {
        path = "\(directory.path)/.lock"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw POSIXFailure(operation: "open", path: path) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.readPID(descriptor)
            close(descriptor)
            throw Held(path: path, holderPID: holder)
        }
        let text = "\(getpid())\n"
        ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 31, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer.prefix(count), as: UTF8.self).trimmed)
    }
}
