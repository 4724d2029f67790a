import IngestCore
import Foundation

/// The fsync discipline publishing depends on: data reaches the disk before
/// the name that makes it visible, and the directory entry after that.
public enum DurableFile {
    public static func fsync(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXFailure(operation: "open", path: path) }
        defer { close(descriptor) }
        guard Glibc.fsync(descriptor) == 0 else { throw POSIXFailure(operation: "fsync", path: path) }
    }

    /// Writes `data` to a hidden temporary file beside `path`, fsyncs it and
    /// renames it over `path`: readers see the old file or the whole new one.
    public static func write(_ data: Data, to path: String) throws {
        try write(data, to: path, inFolder: (path as NSString).deletingLastPathComponent)
    }

    /// The same, with the temporary file in `folder`, the folder of `path`.
    static func write(_ data: Data, to path: String, inFolder folder: String) throws {
        let temporary = "\(folder)/.tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw POSIXFailure(operation: "create", path: temporary) }
        var ok = false
        defer {
            if !ok { unlink(temporary) }
        }
        do {
            defer { close(descriptor) }
            fchmod(descriptor, 0o644)
            try OutputFile.writeAll(data, to: descriptor, path: temporary)
            guard Glibc.fsync(descriptor) == 0 else { throw POSIXFailure(operation: "fsync", path: temporary) }
        }
        guard rename(temporary, path) == 0 else { throw POSIXFailure(operation: "rename to", path: path) }
        ok = true
    }
}
