import Foundation
import Synchronization

/// Whether a published version can be trusted as it lies on disk: its file
/// matches its manifest's SHA-256 and passes `PRAGMA quick_check`
/// (SNAPSHOT.md). A rollback asks it of the version it switches to; every
/// run asks it of `current` before building on it, since a night that
/// carried over from a damaged file would publish the damage again.
public enum PublishedVersionCheck {
    /// The check begun: the manifest and SHA-256 judged (`problem`), the
    /// quick_check still running on a thread of its own. A night reads
    /// `current` and the reference data meanwhile, where one core sat idle
    /// for most of a second on the national snapshot, and asks
    /// `quickCheckProblem()` before its first phase ends.
    public final class Begun: Sendable {
        /// The manifest missing or the SHA-256 wrong; nil when they hold.
        public let problem: String?
        private let quickCheck = CheckResults()
        private let done = DispatchSemaphore(value: 0)

        fileprivate init(version: String, in directory: SnapshotDirectory) {
            let path = directory.snapshotPath(version)
            let (results, done) = (quickCheck, done)
            let thread = Thread {
                results.set(quickCheck: Result {
                    let database = try SQLiteDatabase(path: path, readOnly: true) // closed when it goes
                    return try database.strings("PRAGMA quick_check")
                })
                done.signal()
            }
            thread.name = "ingest-current-quick-check"
            thread.start()
            problem = Self.digestProblem(version: version, path: path, in: directory)
        }

        /// Why the file fails quick_check (nil when it passes), once it has run.
        public func quickCheckProblem() -> String? {
            done.wait()
            done.signal() // for the next caller
            return PublishedVersionCheck.verdict(quickCheck.quickCheck!)
        }

        private static func digestProblem(version: String, path: String, in directory: SnapshotDirectory) -> String? {
            let manifest: Manifest
            do { manifest = try directory.readManifest(version) } catch {
                return "has no readable manifest to check it against (\(error))"
            }
            do {
                let digest = try FileDigest.sha256(path: path)
                return digest == manifest.snapshot.sha256 ? nil
                    : "does not match its manifest: SHA-256 \(digest), the manifest says \(manifest.snapshot.sha256)"
            } catch {
                return "cannot be checked: \(error)"
            }
        }
    }

    /// Begins the check of `version`: returns once its manifest and SHA-256 are judged.
    public static func begin(_ version: String, in directory: SnapshotDirectory) -> Begun {
        Begun(version: version, in: directory)
    }

    /// quick_check's findings in words; nil for "ok". A file damaged enough
    /// makes quick_check itself fail (SQLITE_CORRUPT): the same verdict.
    fileprivate static func verdict(_ quickCheck: Result<[String], Error>) -> String? {
        let findings: [String]
        do { findings = try quickCheck.get() } catch { return "fails PRAGMA quick_check: \(error)" }
        return findings == ["ok"] ? nil : "fails PRAGMA quick_check: \(findings.prefix(3).joined(separator: "; "))"
    }

    /// Why `version` cannot be trusted, in words for the operator; nil when it can.
    public static func problem(with version: String, in directory: SnapshotDirectory) -> String? {
        let path = directory.snapshotPath(version)
        let manifest: Manifest
        do { manifest = try directory.readManifest(version) } catch {
            return "has no readable manifest to check it against (\(error))"
        }
        // The two reads are independent; on two cores they overlap (the
        // national snapshot: about 1 s of SHA-256 beside quick_check's scan).
        let results = CheckResults()
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            if index == 0 {
                results.set(digest: Result { try FileDigest.sha256(path: path) })
            } else {
                results.set(quickCheck: Result {
                    let database = try SQLiteDatabase(path: path, readOnly: true) // closed when it goes
                    return try database.strings("PRAGMA quick_check")
                })
            }
        }
        do {
            let digest = try results.digest!.get()
            guard digest == manifest.snapshot.sha256 else {
                return "does not match its manifest: SHA-256 \(digest), the manifest says \(manifest.snapshot.sha256)"
            }
            return verdict(results.quickCheck!)
        } catch {
            return "cannot be checked: \(error)"
        }
    }
}

/// The two results of the check, each set by its own thread.
private final class CheckResults: Sendable {
    private let state = Mutex<(digest: Result<String, Error>?, quickCheck: Result<[String], Error>?)>((nil, nil))
    var digest: Result<String, Error>? { state.withLock { $0.digest } }
    var quickCheck: Result<[String], Error>? { state.withLock { $0.quickCheck } }
    func set(digest: Result<String, Error>) { state.withLock { $0.digest = digest } }
    func set(quickCheck: Result<[String], Error>) { state.withLock { $0.quickCheck = quickCheck } }
}
