import Foundation
import IngestCore

/// Files an operator has set aside (`ingest quarantine add`, or `snapshots
/// rollback --quarantine`): by SHA-256, so a bad feed stays out however it
/// is named or copied back. Kept beside the snapshots, in
/// `quarantine.json`, written whole and renamed into place. A run skips a
/// quarantined file (outcome `quarantined`) and carries its pharmacy over.
public struct Quarantine: Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var sha256: String
        /// The file's name when it was quarantined, for people.
        public var file: String
        /// UTC, ISO 8601.
        public var addedAt: String
        public var reason: String

        enum CodingKeys: String, CodingKey {
            case sha256, file, reason
            case addedAt = "added_at"
        }

        public init(sha256: String, file: String, addedAt: String, reason: String) {
            self.sha256 = sha256
            self.file = file
            self.addedAt = addedAt
            self.reason = reason
        }
    }

    private struct Document: Codable {
        var files: [Entry]
    }

    public private(set) var entries: [Entry]

    public static func path(in directory: SnapshotDirectory) -> String { "\(directory.path)/quarantine.json" }

    public init(entries: [Entry] = []) {
        self.entries = entries
    }

    /// The folder's list; none when the file is absent. A file that cannot be
    /// read as the list is an error: skipping it would let bad feeds back in.
    /// Absent means no entry of that name at all: a link to nowhere or a
    /// file this user cannot read is there, and stops the caller (it once
    /// read as an empty list and let quarantined feeds back in).
    public static func load(from directory: SnapshotDirectory) throws -> Quarantine {
        let path = path(in: directory)
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw QuarantineUnreadable(path: path, reason: String(cString: strerror(errno))) }
            return Quarantine()
        }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return Quarantine(entries: try JSONDecoder().decode(Document.self, from: data).files)
        } catch {
            throw QuarantineUnreadable(path: path, reason: "\(error)")
        }
    }

    public struct QuarantineUnreadable: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path) cannot be read as the quarantine list (\(reason)); fix or remove it" }
    }

    /// Loads the list, changes it and saves it (when changed) under an
    /// exclusive lock of its own, so that changes made at once all stay:
    /// 40 parallel `quarantine add` once kept 2 of 40 entries. Not the
    /// run's lock: a quarantine made during a night must not wait for it.
    public static func update<Result>(in directory: SnapshotDirectory, _ change: (inout Quarantine) throws -> Result) throws -> Result {
        let lockPath = "\(directory.path)/.quarantine.lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXFailure(operation: "open", path: lockPath) }
        defer { close(descriptor) } // closing releases the lock
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw POSIXFailure(operation: "flock", path: lockPath) }
        }
        var list = try load(from: directory)
        let before = list
        let result = try change(&list)
        if list != before { try list.save(to: directory) }
        return result
    }

    public func save(to directory: SnapshotDirectory) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try DurableFile.write(try encoder.encode(Document(files: entries)) + Data("\n".utf8), to: Self.path(in: directory))
    }

    public var isEmpty: Bool { entries.isEmpty }

    public func entry(sha256: String) -> Entry? { entries.first { $0.sha256 == sha256 } }

    /// Adds `entry` unless its SHA-256 is listed already; true when added.
    @discardableResult
    public mutating func add(_ entry: Entry) -> Bool {
        guard self.entry(sha256: entry.sha256) == nil else { return false }
        entries.append(entry)
        return true
    }

    /// Removes the entries whose SHA-256 or file name is `key`; those removed.
    public mutating func remove(_ key: String) -> [Entry] {
        let removed = entries.filter { $0.sha256 == key || $0.file == key }
        entries.removeAll { $0.sha256 == key || $0.file == key }
        return removed
    }
}
