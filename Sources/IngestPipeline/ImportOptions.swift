import Foundation
import IngestCore

/// Everything one import run is told; the CLI fills it from flags.
public struct ImportOptions: Sendable {
    public var feedsDirectory: String
    public var snapshotsDirectory: String
    public var mappingsDirectory: String
    /// True when the mappings folder was named by the operator: then it must
    /// exist. The default folder may be absent (built-in adapters and fee
    /// periods only), and the report says so.
    public var mappingsDirectoryRequired = false
    /// Do everything but publish: nothing is written to the snapshots directory.
    public var dryRun: Bool
    /// Versions kept by pruning after a publish; `current` always stays.
    public var retention: Int
    /// Threads that parse feeds while the calling thread writes SQLite.
    public var parseThreads: Int
    public var importerVersion: String
    /// The wall clock: versions, `created_at`.
    public var now: Date
    /// The run's notion of "now" (`--as-of`), by default `now`: what counts
    /// as fresh, stale or dated in the future, the fee periods and the lists
    /// in force. Set to replay a past night or build a database of another era.
    public var asOf: Date
    public var gates: QualityGates = QualityGates()
    /// Per-pharmacy checks against current and across tonight's feeds (wrong data, not missing data).
    public var checks = StockDataChecks()
    /// Gates judged after the built-in ones (a deployment's own, a test's).
    public var additionalGates: [any Gate] = []
    /// The run's gates: the built-in ones with these limits, then `additionalGates`.
    public var gateCatalog: GateCatalog {
        GateCatalog(GateCatalog.builtIn(gates: gates, checks: checks).gates + additionalGates)
    }
    /// Publish even when a quality gate fails (never an empty result); the manifest records it.
    public var force = false
    /// Carried-over offers older than this are dropped with a warning.
    public var maxStaleDays = 7
    /// Seconds one pharmacy's feeds (or one chain file's split) may take to
    /// parse; past it they are rejected `limit_exceeded` and the run goes
    /// on. A 1 GB feed parses in well under a minute on a slow night.
    public var feedTimeout: TimeInterval = 900
    /// Build as on a first night (`--first-night`): `current`, readable or
    /// not, is neither carried from nor compared with. Without it a
    /// `current` that cannot be read stops the run.
    public var firstNight = false
    /// Days of `price_history` kept (`--history-days`); the price in force at the window's start stays too.
    public var historyDays = 400
    /// The snapshot's currency, ISO 4217 (`--currency`, SNAPSHOT.md): every
    /// `*_cents` column holds its minor units; `meta.currency` says which.
    public var currency = "EUR"
    /// Renders the HTML report of a run about to publish (its `publishedVersion`
    /// set): written beside the version before `current` switches. The
    /// pipeline does not know HTML; the CLI gives it this.
    public var reportPage: (@Sendable (RunReport) throws -> Data)?
    /// `PRAGMA integrity_check` before publishing, besides the publish check (`--full-check`).
    public var fullCheck = false
    /// Where a dry run stages its database (`ScratchDirectory`), and where
    /// every run looks for what a killed one left.
    public var scratchParent = NSTemporaryDirectory()

    public init(
        feedsDirectory: String = "feeds", snapshotsDirectory: String = "var/snapshots",
        mappingsDirectory: String = "mappings", dryRun: Bool = false, retention: Int = 7,
        parseThreads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount),
        importerVersion: String = IngestVersion.current, now: Date = Date(), asOf: Date? = nil
    ) {
        self.asOf = asOf ?? now
        self.feedsDirectory = feedsDirectory
        self.snapshotsDirectory = snapshotsDirectory
        self.mappingsDirectory = mappingsDirectory
        self.dryRun = dryRun
        self.retention = retention
        self.parseThreads = parseThreads
        self.importerVersion = importerVersion
        self.now = now
    }

    /// `asOf` as an instant with Tallinn's offset, the pharmacies' own clock.
    public var asOfTimestamp: ExportTimestamp { ExportTimestamp.tallinnTime(asOf) }
}

