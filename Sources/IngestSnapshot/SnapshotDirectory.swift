import IngestCore
import Foundation

/// The snapshots directory and its naming rules: `<version>.sqlite`,
/// `<version>.manifest.json`, `<version>.rejects.jsonl`, the `current`
/// symlink, hidden staging files, and the `.lock`.
public struct SnapshotDirectory: Sendable {
    public let path: String

    public init(path: String) {
        self.path = (path as NSString).standardizingPath
    }

    public static let currentLink = "current"
    public static let stagingPrefix = ".staging-"

    public func snapshotPath(_ version: String) -> String { "\(path)/\(version).sqlite" }
    public func manifestPath(_ version: String) -> String { "\(path)/\(version).manifest.json" }
    public func rejectsName(_ version: String) -> String { "\(version).rejects.jsonl" }
    public func warningsName(_ version: String) -> String { "\(version).warnings.jsonl" }
    /// The version's HTML run report, written after the publish.
    public func reportPath(_ version: String) -> String { "\(path)/\(version).report.html" }
    public func datasettePath(_ version: String) -> String { "\(path)/\(version).datasette.json" }
    /// The changeset from the version before, made by the night that published `version`.
    public func changesetName(_ version: String) -> String { "\(version).changeset" }
    public func changesetPath(_ version: String) -> String { "\(path)/\(changesetName(version))" }
    public var currentPath: String { "\(path)/\(Self.currentLink)" }

    /// Creates the directory (and parents) if missing; errors carry errno,
    /// so a read-only or forbidden location is told apart from a full disk.
    public func create() throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0, errno != EEXIST {
                throw POSIXFailure(operation: "mkdir", path: prefix)
            }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw POSIXFailure(operation: "mkdir", path: path, code: ENOTDIR)
        }
    }

    /// The version `current` points at, if any.
    public func currentVersion() -> String? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: currentPath) else { return nil }
        let name = (target as NSString).lastPathComponent
        guard name.hasSuffix(".sqlite") else { return nil }
        return String(name.dropLast(".sqlite".count))
    }

    /// What `current` is, told apart as a run must: absent (a first night),
    /// a link to a published version, or anything else (a regular file, a
    /// directory, a link to a missing or foreign file), which is a damaged
    /// history and never a first night.
    public enum CurrentLink: Equatable, Sendable {
        case absent
        case version(String)
        case damaged(String)
    }

    public func currentLink() -> CurrentLink {
        var status = stat()
        guard lstat(currentPath, &status) == 0 else {
            return errno == ENOENT ? .absent : .damaged("lstat failed: \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFLNK else {
            let what = status.st_mode & S_IFMT == S_IFDIR ? "a directory" : "a regular file or other non-link"
            return .damaged("\(currentPath) is \(what), not a symbolic link to a version")
        }
        guard let version = currentVersion() else {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: currentPath)) ?? "?" // absence: said in the message
            return .damaged("\(currentPath) points at \(target), which is no <version>.sqlite")
        }
        var target = stat()
        guard stat(snapshotPath(version), &target) == 0 else {
            return .damaged("\(currentPath) points at \(version).sqlite, which does not exist")
        }
        return .version(version)
    }

    /// Published versions, oldest first. A version is published once its
    /// `.sqlite` file exists (the manifest is written before it).
    /// A folder that does not exist yet has none (a first night); one that
    /// cannot be listed is an error, never "no versions": that answer would
    /// let prune, the next version's number and a client's 410 go wrong.
    public func versions() throws(POSIXFailure) -> [String] {
        try names()
            .filter { $0.hasSuffix(".sqlite") && !$0.hasPrefix(".") }
            .map { String($0.dropLast(".sqlite".count)) }
            .sorted()
    }

    /// The folder's entries; none when it does not exist. A listing whose
    /// descriptor was closed under it (EBADF: another thread of the process
    /// closed a descriptor twice, and the second close hit this one; seen
    /// once in the test suite, beside Foundation's `Process`) is read again,
    /// up to three times in all; any other failure is thrown at once.
    private func names() throws(POSIXFailure) -> [String] {
        var attempt = 1
        while true {
            do { return try listing() } catch where error.code == EBADF && attempt < 3 { attempt += 1 }
        }
    }

    private func listing() throws(POSIXFailure) -> [String] {
        guard let directory = opendir(path) else {
            if errno == ENOENT { return [] }
            throw POSIXFailure(operation: "list", path: path)
        }
        defer { closedir(directory) }
        var names: [String] = []
        errno = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
            errno = 0
        }
        if errno != 0 { throw POSIXFailure(operation: "list", path: path) }
        return names
    }

    /// A version that sorts after every existing one: UTC time to the second,
    /// then a three-digit sequence for runs within the same second (or after
    /// a clock step backwards).
    public func nextVersion(now: Date = Date()) throws(POSIXFailure) -> String {
        let stamp = MachineTime.versionStamp(now)
        let existing = try versions() + manifestsWithoutSnapshot()
        guard let latest = existing.max(), latest >= stamp else { return "\(stamp)-001" }
        let parts = latest.split(separator: "-")
        let sequence = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
        return "\(parts[0])-\(String(format: "%03d", sequence + 1))"
    }

    private func manifestsWithoutSnapshot() throws(POSIXFailure) -> [String] {
        try names().filter { $0.hasSuffix(".manifest.json") }.map { String($0.dropLast(".manifest.json".count)) }
    }

    /// A new, hidden staging file, created exclusively with mode 0644: never
    /// a version's name, so a crash can leave nothing that looks published.
    public func makeStagingFile() throws -> String {
        for _ in 0..<16 {
            let name = "\(Self.stagingPrefix)\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sqlite"
            let candidate = "\(path)/\(name)"
            let descriptor = open(candidate, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o644)
            if descriptor >= 0 {
                fchmod(descriptor, 0o644) // umask must not narrow what readers need
                close(descriptor)
                return candidate
            }
            if errno != EEXIST { throw POSIXFailure(operation: "create staging file in", path: path) }
        }
        throw POSIXFailure(operation: "create staging file in", path: path, code: EEXIST)
    }

    /// Removes what killed runs left: staging files, temporary links, and
    /// manifests or rejects of versions whose snapshot never got its name.
    /// Call only while holding the lock. Returns the paths removed, for the report.
    @discardableResult
    public func removeAbandonedFiles() throws(POSIXFailure) -> [String] {
        let names = try names()
        let published = Set(try versions())
        var removed: [String] = []
        for name in names.sorted() {
            let full = "\(path)/\(name)"
            let abandoned = name.hasPrefix(Self.stagingPrefix) || name.hasPrefix(".current-") || name.hasPrefix(".tmp-")
                || Self.version(ofSidecar: name).map { !published.contains($0) } ?? false
            if abandoned, unlink(full) == 0 { removed.append(full) }
        }
        return removed
    }

    /// The files that go with a version's `.sqlite`, pruned and abandoned with it.
    static let sidecarSuffixes = [".manifest.json", ".rejects.jsonl", ".warnings.jsonl", ".report.html", ".datasette.json", ".changeset"]

    /// Every file of `version` but the snapshot itself.
    public func sidecarPaths(_ version: String) -> [String] { Self.sidecarSuffixes.map { "\(path)/\(version)\($0)" } }

    static func version(ofSidecar name: String) -> String? {
        for suffix in sidecarSuffixes where name.hasSuffix(suffix) {
            return String(name.dropLast(suffix.count))
        }
        return nil
    }

    public func readManifest(_ version: String) throws -> Manifest {
        try Manifest.decode(Data(contentsOf: URL(fileURLWithPath: manifestPath(version))))
    }
}
