import Foundation

/// Everything one import run is told; the CLI fills it from flags.
public struct ImportOptions: Sendable {
    public var feedsDirectory: String
    public var snapshotsDirectory: String
    public var mappingsDirectory: String
    /// Do everything but publish: nothing is written to the snapshots directory.
    public var dryRun: Bool
    /// Versions kept by pruning after a publish; `current` always stays.
    public var retention: Int
    /// Threads that parse feeds while the calling thread writes SQLite.
    public var parseThreads: Int
    public var importerVersion: String
    /// The run's clock: versions, `created_at`.
    public var now: Date
    public var gates: QualityGates = QualityGates()
    /// Publish even when a quality gate fails (never an empty result); the manifest records it.
    public var force = false
    /// Carried-over offers older than this are dropped with a warning.
    public var maxStaleDays = 7

    public init(
        feedsDirectory: String = "feeds", snapshotsDirectory: String = "var/snapshots",
        mappingsDirectory: String = "mappings", dryRun: Bool = false, retention: Int = 7,
        parseThreads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount),
        importerVersion: String = IngestVersion.current, now: Date = Date()
    ) {
        self.feedsDirectory = feedsDirectory
        self.snapshotsDirectory = snapshotsDirectory
        self.mappingsDirectory = mappingsDirectory
        self.dryRun = dryRun
        self.retention = retention
        self.parseThreads = parseThreads
        self.importerVersion = importerVersion
        self.now = now
    }
}

public enum IngestVersion {
    public static let current = "0.1.0"
}
