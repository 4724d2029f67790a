import Foundation
import Synchronization

/// Whether a published version can be trusted as it lies on disk: its file
/// matches its manifest's SHA-256 and passes `PRAGMA quick_check`
/// (SNAPSHOT.md). A rollback asks it of the version it switches to; every
/// run asks it of `current` before building on it, since a night that
/// carried over from a damaged file would publish the damage again.
public enum PublishedVersionCheck {
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
            // A file damaged enough makes quick_check itself fail (SQLITE_CORRUPT): the same verdict.
            let findings: [String]
            do { findings = try results.quickCheck!.get() } catch { return "fails PRAGMA quick_check: \(error)" }
            return findings == ["ok"] ? nil : "fails PRAGMA quick_check: \(findings.prefix(3).joined(separator: "; "))"
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
