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
    public static func load(from directory: SnapshotDirectory) throws -> Quarantine {
        let path = path(in: directory)
        guard FileManager.default.fileExists(atPath: path) else { return Quarantine() }
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
