import Foundation
import IngestCore

/// A run's private working folder outside the snapshots directory (a dry
/// run's staging database, `ingest check`'s and `testdb`'s spills), which
/// the next run finds and removes if this one is killed.
///
/// Each folder holds `.lock`, `flock`ed by its run for as long as it lives:
/// the kernel drops the lock when the process dies, so a folder whose lock
/// can be taken belongs to nobody. A process id would not do: ids are
/// reused, and a stopped run is alive. The folder is created under a
/// `.new` name and renamed once locked, so a sweep never sees it unlocked.
public final class ScratchDirectory {
    public static let namePrefix = "ingest-scratch-"
    private static let newPrefix = ".ingest-scratch-new-"
    /// A folder still under its `.new` name this long after it was made was
    /// left between `mkdir` and the rename: its run died there.
    private static let unfinishedAge: TimeInterval = 3600

    public let path: String
    private let lockDescriptor: Int32

    /// Creates `<parent>/ingest-scratch-<purpose>-<pid>-<random>`, locked.
    public init(purpose: String, in parent: String = NSTemporaryDirectory()) throws {
        let parent = parent.hasSuffix("/") ? String(parent.dropLast()) : parent
        let unique = "\(purpose)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let building = "\(parent)/\(Self.newPrefix)\(unique)"
        guard mkdir(building, 0o700) == 0 else { throw POSIXFailure(operation: "create scratch folder", path: building) }
        let descriptor = open("\(building)/.lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure = POSIXFailure(operation: "lock scratch folder", path: building)
            if descriptor >= 0 { close(descriptor) }
            rmdir(building)
            throw failure
        }
        let final = "\(parent)/\(Self.namePrefix)\(unique)"
        guard rename(building, final) == 0 else {
            let failure = POSIXFailure(operation: "rename scratch folder", path: final)
            close(descriptor)
            try? FileManager.default.removeItem(atPath: building) // best effort: the failure above is what is reported
            throw failure
        }
        path = final
        lockDescriptor = descriptor
    }

    deinit {
        // Best effort: what stays behind is found by the next run's sweep.
        try? FileManager.default.removeItem(atPath: path)
        close(lockDescriptor)
    }

    /// Removes every scratch folder in `parent` whose run is gone; returns
    /// their paths for the report. A folder whose lock is held is left alone.
    public static func removeAbandoned(in parent: String = NSTemporaryDirectory()) -> [String] {
        let parent = parent.hasSuffix("/") ? String(parent.dropLast()) : parent
        // Absence is normal: a temporary folder with nothing of ours.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        var removed: [String] = []
        for name in names.sorted() {
            let full = "\(parent)/\(name)"
            if name.hasPrefix(namePrefix) {
                let descriptor = open("\(full)/.lock", O_RDWR | O_CLOEXEC | O_NOFOLLOW)
                guard descriptor >= 0 else { continue } // not ours after all, or already going
                defer { close(descriptor) }
                guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue } // its run is alive
            } else if name.hasPrefix(newPrefix) {
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: full),
                      let modified = attributes[.modificationDate] as? Date,
                      Date().timeIntervalSince(modified) > unfinishedAge else { continue }
            } else {
                continue
            }
            if (try? FileManager.default.removeItem(atPath: full)) != nil { removed.append(full) }
        }
        return removed
    }
}
