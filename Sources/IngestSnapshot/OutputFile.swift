import Foundation
import IngestCore

/// Where `--report` and `--metrics-file` go: any path a user gives. `-` is
/// standard output; a path that exists and is not a regular file (a FIFO,
/// `/dev/stdout`, a symbolic link) is written directly and never renamed
/// over; anything else is a regular file, written whole to a temporary file
/// in its own folder (the current one for a bare name) and renamed, so a
/// reader sees the old file or the new one.
public enum OutputFile {
    public static func write(_ data: Data, to path: String) throws {
        // What was printed before must come first on a shared standard output.
        fflush(nil) // every C stream: standard output among them
        if path == "-" { return try writeAll(data, to: STDOUT_FILENO, path: "standard output") }
        var info = stat()
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            let descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw POSIXFailure(operation: "open", path: path) }
            defer { close(descriptor) }
            return try writeAll(data, to: descriptor, path: path)
        }
        let folder = (path as NSString).deletingLastPathComponent
        try DurableFile.write(data, to: path, inFolder: folder.isEmpty ? "." : folder)
    }

    static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws {
        try FileIO.write(data, to: descriptor, path: path)
    }
}
