import Foundation
import IngestAdapters
import IngestCore
import IngestSnapshot

/// The files of the feeds folder that a published night rejected for their
/// own content, by name, size, modification time and SHA-256: a later night
/// does not parse them again, keeps their line in the manifest (outcome
/// `rejected`, the same reason) and reports them as a count, not a line
/// each: an old rejected file once made cron mail every night.
///
/// A rejection that depends on the night (an export dated in the future,
/// the checks against current, a timeout, a setting) is judged again each
/// night, as are loaded and skipped files (their SHA-256 against current's
/// decides, and a file rewritten with its old size and time must count).
/// Entries of versions after `current` (rolled back) count for nothing.
/// Kept in the snapshots folder as `feeds.ledger.json`; a ledger that cannot
/// be read only means every file is read again.
public struct FeedLedger: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var name: String
        public var size: Int64
        /// Nanoseconds since the epoch (`st_mtim`).
        public var modified: Int64
        public var sha256: String
        public var outcome: String
        public var reason: String?
        public var kind: String?
        public var adapter: String?
        public var pharmacyID: String?
        /// The service-local date of the run that judged it.
        public var night: String
        /// The version that run published (or found holding the same data).
        public var version: String
    }

    public var files: [Entry] = []

    public init(files: [Entry] = []) { self.files = files }

    static func path(in directory: SnapshotDirectory) -> String { "\(directory.path)/feeds.ledger.json" }

    /// The folder's ledger; empty when there is none or it cannot be read (the files are then read again, which is safe).
    static func load(from directory: SnapshotDirectory) -> FeedLedger {
        guard let data = FileManager.default.contents(atPath: path(in: directory)) else { return FeedLedger() }
        return (try? JSONDecoder().decode(FeedLedger.self, from: data)) ?? FeedLedger() // unreadable: read every file again
    }

    func save(to directory: SnapshotDirectory) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try DurableFile.write(try encoder.encode(self) + Data("\n".utf8), to: Self.path(in: directory))
    }

    /// The entry for a file as it is now, judged by a night before `runDate`
    /// and by a version `current` has not been rolled back from.
    func judged(name: String, size: Int64, modified: Int64, before runDate: String, current: String?) -> Entry? {
        guard let current else { return nil }
        return files.first { entry in
            entry.name == name && entry.size == size && entry.modified == modified && entry.night < runDate && entry.version <= current
        }
    }

    /// A file `ingest feeds prune` may remove, and why.
    public struct Prunable: Sendable, Equatable {
        public var path: String
        public var name: String
        /// `loaded` (a kept version's manifest lists it so) or `rejected` (the ledger's).
        public var outcome: String
        public var reason: String?
        public var night: String
    }

    /// The files of `feeds` judged at least `days` before `today` (service-
    /// local dates): rejected for good by a published night (the ledger; the
    /// file unchanged since), or loaded by a kept version created then (its
    /// SHA-256 among that manifest's loaded inputs, so its data is in the history).
    public static func prunable(in directory: SnapshotDirectory, feeds: String, olderThan days: Int, today: String) throws -> [Prunable] {
        guard let noon = ExportTimestamp.parseISO8601(today + "T12:00:00") else { return [] }
        let cutoff = ExportTimestamp(epochSeconds: noon.epochSeconds - Int64(days) * 86_400, utcOffsetSeconds: noon.utcOffsetSeconds).localDate
        var loaded: [String: String] = [:] // SHA-256 → the first night a kept version loaded it
        for version in try directory.versions() {
            // A version without a readable manifest vouches for nothing: its files stay.
            guard let manifest = try? directory.readManifest(version), let night = ExportTimestamp.parseISO8601(manifest.createdAt)?.localDate else { continue }
            for input in manifest.inputs where input.outcome == FeedOutcome.loaded.rawValue {
                loaded[input.sha256] = min(loaded[input.sha256] ?? night, night)
            }
        }
        let ledger = load(from: directory)
        var found: [Prunable] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: feeds).sorted() where !name.hasPrefix(".") {
            let path = "\(feeds)/\(name)"
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let sha256 = try FileDigest.sha256(path: path)
            if let entry = ledger.files.first(where: { $0.name == name && $0.sha256 == sha256 && $0.size == Int64(info.st_size) }), entry.night <= cutoff {
                found.append(Prunable(path: path, name: name, outcome: entry.outcome, reason: entry.reason, night: entry.night))
            } else if let night = loaded[sha256], night <= cutoff {
                found.append(Prunable(path: path, name: name, outcome: FeedOutcome.loaded.rawValue, reason: nil, night: night))
            }
        }
        return found
    }

    /// Rejections that another night could judge otherwise.
    static let rejudged: Set<String> = [
        RejectReason.exportInFuture, .noFeePeriod, .priceShift, .itemCountDrop, .duplicateStock, .limitExceeded, .notAPharmacyID,
        .rejectRateExceeded, .tooManyRejects, .wrongCurrency, .unreadable, .pharmacyMismatch,
    ].reduce(into: Set<String>()) { $0.insert($1.rawValue) }

    /// Whether a night's judgement of a file stands for later nights.
    static func isFinal(_ feed: FeedResult) -> Bool {
        feed.outcome == .rejected && feed.reason.map { !rejudged.contains($0) } ?? false
    }

    /// The manifest's and the report's line for a file this ledger judged: rejected again, not read.
    func line(for entry: Entry) -> FeedResult {
        var result = FeedResult(file: entry.name, size: entry.size, sha256: entry.sha256, kind: entry.kind, adapter: entry.adapter, outcome: .rejected)
        result.pharmacyID = entry.pharmacyID
        result.reason = entry.reason
        result.message = "rejected on \(entry.night) (\(entry.reason ?? entry.outcome)); the same file, not read again: ingest feeds prune removes it"
        result.earlierNight = true
        return result
    }

    /// Tonight's ledger: the entries of files still left from earlier nights,
    /// and tonight's final judgements of the files read (`modified` by name:
    /// files no longer in the folder drop out).
    static func tonight(keeping kept: [Entry], feeds: [FeedResult], modified: [String: Int64], night: String, version: String) -> FeedLedger {
        var files = kept
        // A chain file has a line per pharmacy: it is final only when every line is.
        for (name, lines) in Dictionary(grouping: feeds, by: \.file) where lines.allSatisfy(isFinal) {
            guard let time = modified[name], let read = lines.first(where: { !$0.sha256.isEmpty }) else { continue }
            files.append(Entry(name: name, size: read.size, modified: time, sha256: read.sha256, outcome: read.outcome.rawValue,
                               reason: read.reason, kind: read.kind, adapter: read.adapter, pharmacyID: read.pharmacyID, night: night, version: version))
        }
        return FeedLedger(files: files.sorted { $0.name < $1.name })
    }
}
