import Foundation
import IngestCore

/// Where `--report`, `--html`, `--metrics-file` and `changeset --out` go:
/// any path a user gives, written so that it cannot hurt.
///
/// - `-` is standard output.
/// - A regular file, or a name not there yet, is written whole to a
///   temporary file in its own folder and renamed: a reader sees the old
///   file or the new one, never a stale tail after a shorter write.
/// - A symbolic link is replaced by the new file, never written through
///   (through it, a report once overwrote the published snapshot in place),
///   unless it leads to something that is not a regular file.
/// - A FIFO, a terminal or `/dev/stdout` (a link to one) is written in place.
///
/// `refusal(of:protecting:)` keeps user-named outputs out of the snapshots
/// folder altogether.
public enum OutputFile {
    public static func write(_ data: Data, to path: String) throws {
        // What was printed before must come first on a shared standard output.
        fflush(nil) // every C stream: standard output among them
        if path == "-" { return try writeAll(data, to: STDOUT_FILENO, path: "standard output") }
        if let stream = inPlace(path) {
            let descriptor = open(stream, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard descriptor >= 0 else { throw POSIXFailure(operation: "open", path: path) }
            defer { close(descriptor) }
            return try writeAll(data, to: descriptor, path: path)
        }
        let folder = (path as NSString).deletingLastPathComponent
        try DurableFile.write(data, to: path, inFolder: folder.isEmpty ? "." : folder)
    }

    /// The path to open and write in place: one that is, or links to, something other than a regular file.
    private static func inPlace(_ path: String) -> String? {
        var own = stat()
        guard lstat(path, &own) == 0 else { return nil }
        var target = stat()
        // A dangling link, like a link to a regular file, is replaced.
        guard stat(path, &target) == 0 else { return nil }
        return (target.st_mode & S_IFMT) == S_IFREG ? nil : path
    }

    /// Why a user-named output must not be written: it lies in `folder` (the
    /// snapshots folder, ingest's own) or is a link into it. nil when it may.
    /// The folder need not exist yet: on a first night `--report S/current`
    /// once became `current` itself, because a folder not there was not checked.
    public static func refusal(of path: String, protecting folder: String) -> String? {
        guard path != "-" else { return nil }
        let protected = canonicalPath(folder)
        func inside(_ candidate: String) -> Bool { candidate == protected || candidate.hasPrefix(protected == "/" ? "/" : protected + "/") }
        var own = stat()
        let isLink = lstat(path, &own) == 0 && (own.st_mode & S_IFMT) == S_IFLNK
        var where_ = (path as NSString).deletingLastPathComponent
        if where_.isEmpty { where_ = "." }
        if inside(canonicalPath(where_)) {
            return "\(path) lies in the snapshots folder \(folder), which is ingest's own; write outputs elsewhere"
        }
        if isLink, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) { // unreadable: not a link we can follow
            let absolute = target.hasPrefix("/") ? target : "\(where_)/\(target)"
            var targetFolder = (absolute as NSString).deletingLastPathComponent
            if targetFolder.isEmpty { targetFolder = "." }
            if inside(canonicalPath(targetFolder)) {
                return "\(path) is a link into the snapshots folder \(folder) (to \(target)); it is never written through"
            }
        }
        return nil
    }

    /// The canonical absolute path of a folder, there or not: the longest
    /// part that exists resolved by `realpath` (links, `..`), the rest
    /// appended with `.` and `..` taken lexically.
    static func canonicalPath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var existing = absolute
        var rest: [String] = []
        while true {
            if let resolved = realpath(existing, nil) {
                defer { free(resolved) }
                var parts = String(cString: resolved).split(separator: "/").map(String.init)
                for part in rest.reversed() {
                    switch part {
                    case "", ".": continue
                    case "..": _ = parts.popLast()
                    default: parts.append(part)
                    }
                }
                return "/" + parts.joined(separator: "/")
            }
            let parent = (existing as NSString).deletingLastPathComponent
            guard parent != existing, !parent.isEmpty else { return absolute }
            rest.append((existing as NSString).lastPathComponent)
            existing = parent
        }
    }

    static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws {
        try FileIO.write(data, to: descriptor, path: path)
    }
}
