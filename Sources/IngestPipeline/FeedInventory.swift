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
        /// Not read because the system refused it (`open` or `stat` failed), not by rule.
        var unreadable = false
        /// Its modification time in nanoseconds, for the ledger of files judged on earlier nights.
        var modified: Int64?

        init(name: String, path: String, file: FeedFile, modified: Int64? = nil) {
            self.name = name
            self.path = path
            self.file = file
            self.modified = modified
        }

        init(name: String, path: String, skipped: String, unreadable: Bool = false) {
            self.name = name
            self.path = path
            self.skipped = skipped
            self.unreadable = unreadable
        }
    }

    let entries: [Entry]

    /// No files: the inventory of a feeds folder that is not there.
    init() { entries = [] }

    /// Files named one by one (`ingest check`), in the order given; `runTime`
    /// is the time of the run that reads them (FEEDS.md §12.1, `date = "run"`).
    init(files: [String], runTime: ExportTimestamp? = nil) {
        entries = files.map { path in
            let name = (path as NSString).lastPathComponent
            do throws(FeedFailure) {
                var file = try FeedFile.open(path: path, name: name)
                file.runTime = runTime
                return Entry(name: name, path: path, file: file)
            } catch {
                return Entry(name: name, path: path, skipped: error.message, unreadable: error.reason == .unreadable)
            }
        }
    }

    init(directory: String, runTime: ExportTimestamp? = nil) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ImportError.feedsDirectoryMissing(directory)
        }
        var entries: [Entry] = []
        for name in try Self.names(in: directory) {
            // A name is bytes: shown escaped, and a file whose name is not UTF-8 is opened by its bytes and held open.
            let display = FeedPath.displayName(name)
            let utf8Name = String(validating: name, as: UTF8.self)
            let path = "\(directory)/\(utf8Name ?? display)"
            let bytePath = Array(directory.utf8) + [UInt8(ascii: "/")] + name + [0]
            if name.first == UInt8(ascii: ".") {
                // Editor and download leftovers (.part, .swp): never read, but reported.
                entries.append(Entry(name: display, path: path, skipped: "hidden file, not read"))
                continue
            }
            var info = stat()
            guard bytePath.withUnsafeBufferPointer({ $0.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &info) } }) == 0 else {
                entries.append(Entry(name: display, path: path, skipped: "cannot stat: \(String(cString: strerror(errno)))", unreadable: true))
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                entries.append(Entry(name: display, path: path, skipped: "symbolic link, not followed"))
            case S_IFREG:
                do throws(FeedFailure) {
                    if utf8Name != nil {
                        entries.append(Entry(name: display, path: path, file: try FeedFile.open(path: path, name: display), modified: Self.nanoseconds(info.st_mtim)))
                    } else {
                        let descriptor = bytePath.withUnsafeBufferPointer {
                            $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
                        }
                        guard descriptor >= 0 else {
                            throw FeedFailure(reason: .unreadable, message: "cannot open: \(String(cString: strerror(errno)))")
                        }
                        let held = HeldFile(descriptor: descriptor)
                        entries.append(Entry(name: display, path: held.path, file: try FeedFile.open(path: held.path, name: display, held: held),
                                             modified: Self.nanoseconds(info.st_mtim)))
                    }
                } catch {
                    entries.append(Entry(name: display, path: path, skipped: error.message, unreadable: error.reason == .unreadable))
                }
            case S_IFDIR:
                entries.append(Entry(name: display, path: path, skipped: "directory, not searched"))
            default:
                entries.append(Entry(name: display, path: path, skipped: "not a regular file"))
            }
        }
        self.entries = entries.map { entry in
            var entry = entry
            entry.file?.runTime = runTime
            return entry
        }
    }

    static func nanoseconds(_ time: timespec) -> Int64 { Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec) }

    /// The inventory without the files `leave` says to pass over.
    func without(_ leave: (Entry) -> Bool) -> FeedInventory { FeedInventory(entries: entries.filter { !leave($0) }) }

    private init(entries: [Entry]) { self.entries = entries }

    /// The folder's names as the file system holds them (bytes), in byte order.
    static func names(in directory: String) throws -> [[UInt8]] {
        guard let stream = opendir(directory) else {
            throw ImportError.feedsDirectoryMissing(directory)
        }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name == [46] || name == [46, 46] { continue }
            names.append(name)
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }
}
