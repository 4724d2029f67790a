import IngestCore
import Foundation

/// An exclusive lock on a snapshots directory, so two runs never build and
/// switch at once. It is an `flock` on `.lock`: the kernel drops it when the
/// process dies, so a killed run never blocks the next one.
///
/// A holder that is stopped (SIGSTOP, a debugger, Ctrl-Z) is alive and keeps
/// the lock; nothing may take it from under it, since it would go on
/// writing when continued. The next run says so, naming the process and its
/// state, so the operator can continue or kill it.
public final class SnapshotLock {
    public struct Held: Error, CustomStringConvertible {
        public let path: String
        public let holderPID: Int32?
        /// The holder's state from /proc (`stopped`, `running`, …), when it can be read.
        public let holderState: String?
        public var description: String {
            var text = "another ingest run holds \(path)"
            if let holderPID {
                text += " (PID \(holderPID)" + (holderState.map { ", \($0)" } ?? "") + ")"
            }
            if holderState == "stopped" {
                text += "; a stopped process keeps the lock until it is continued (kill -CONT) or killed"
            }
            return text
        }
    }

    private let descriptor: Int32
    public let path: String

    public init(directory: SnapshotDirectory) throws {
        let path = "\(directory.path)/.lock"
        self.path = path
        // The descriptor is stored only once the lock is taken. A class whose
        // stored properties are all set runs `deinit` when its init throws:
        // storing it first closed it twice when the lock was held, and the
        // second close hit whatever file another thread had opened under
        // that number meanwhile (the likely cause of a SQLite database in
        // the suite failing with SQLITE_IOERR_LOCK, and of a folder listing
        // failing with EBADF).
        let opened = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard opened >= 0 else { throw POSIXFailure(operation: "open", path: path) }
        guard flock(opened, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.readPID(opened)
            close(opened)
            throw Held(path: path, holderPID: holder, holderState: holder.flatMap(Self.state))
        }
        descriptor = opened
        let text = "\(getpid())\n"
        ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// The process's state letter in /proc/PID/stat, in words; nil when it
    /// cannot be read (absence is normal: another machine, another pid namespace).
    static func state(of pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let letter = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        switch letter {
        case "T", "t": return "stopped"
        case "R": return "running"
        case "S", "D", "I": return "waiting"
        case "Z": return "exited, not yet reaped"
        default: return nil
        }
    }

    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 31, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer.prefix(count), as: UTF8.self).trimmed)
    }
}
