import Foundation
import IngestAdapters
import IngestCore

/// The files of the feeds folder, each opened for its sample or set aside
/// with the reason it was not read. Only regular files directly in the
/// folder are read: a symbolic link is never followed (it could point
/// anywhere on the machine), hidden files and folders are skipped.
struct FeedInventory {
    struct Entry {
        var name: String
        var path: String
        var file: FeedFile?
        /// Why the file is not read, when it is not.
        var skipped: String?
    }

    let entries: [Entry]

    /// Files named one by one (`ingest check`), in the order given.
    init(files: [String]) {
        entries = files.map { path in
            let name = (path as NSString).lastPathComponent
            do throws(FeedFailure) {
                return Entry(name: name, path: path, file: try FeedFile.open(path: path, name: name))
            } catch {
                return Entry(name: name, path: path, skipped: error.message)
            }
        }
    }

    init(directory: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ImportError.feedsDirectoryMissing(directory)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var entries: [Entry] = []
        for name in names {
            let path = "\(directory)/\(name)"
            if name.hasPrefix(".") {
                // Editor and download leftovers (.part, .swp): never read, but reported.
                entries.append(Entry(name: name, path: path, skipped: "hidden file, not read"))
                continue
            }
            var info = stat()
            guard lstat(path, &info) == 0 else {
                entries.append(Entry(name: name, path: path, skipped: "cannot stat: \(String(cString: strerror(errno)))"))
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                entries.append(Entry(name: name, path: path, skipped: "symbolic link, not followed"))
            case S_IFREG:
                do {
                    entries.append(Entry(name: name, path: path, file: try FeedFile.open(path: path, name: name)))
                } catch {
                    entries.append(Entry(name: name, path: path, skipped: error.message))
                }
            case S_IFDIR:
                entries.append(Entry(name: name, path: path, skipped: "directory, not searched"))
            default:
                entries.append(Entry(name: name, path: path, skipped: "not a regular file"))
            }
        }
        self.entries = entries
    }
}
