import Foundation

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
        do {
            let digest = try FileDigest.sha256(path: path)
            guard digest == manifest.snapshot.sha256 else {
                return "does not match its manifest: SHA-256 \(digest), the manifest says \(manifest.snapshot.sha256)"
            }
            let database = try SQLiteDatabase(path: path, readOnly: true) // closed when it goes
            let findings = try database.strings("PRAGMA quick_check")
            return findings == ["ok"] ? nil : "fails PRAGMA quick_check: \(findings.prefix(3).joined(separator: "; "))"
        } catch {
            return "cannot be checked: \(error)"
        }
    }
}
