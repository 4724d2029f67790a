/// Why a run could not start or could not publish. Each case maps to its own
/// exit code in the CLI.
public enum ImportError: Error, Sendable, CustomStringConvertible {
    case feedsDirectoryMissing(String)
    /// `--mappings` names a folder that is not there: a typo must not pass as "no mapped feeds tonight".
    case mappingsDirectoryMissing(String)
    /// A mapping, rule or adapter set-up that cannot work; found before any feed is read.
    case configuration(String)
    /// `current` exists but cannot be trusted (SNAPSHOT.md): the night stops
    /// rather than take a damaged history for a first night.
    case currentUnreadable(String)

    public var description: String {
        switch self {
        case .feedsDirectoryMissing(let path): return "feeds directory \(path) does not exist or is not a directory"
        case .mappingsDirectoryMissing(let path): return "mappings directory \(path) (--mappings) does not exist or is not a directory"
        case .configuration(let message): return "configuration error: \(message)"
        case .currentUnreadable(let reason):
            return "current cannot be read: \(reason); nothing was published. Switch current to a good version (ingest snapshots rollback VERSION), or run with --first-night to start a new history on purpose"
        }
    }
}

/// Why a finished run published nothing although it ran to the end.
public enum PublishBlock: Sendable, Equatable, CustomStringConvertible {
    /// No offer survived: an empty snapshot is never published, not even with --force.
    case emptyResult
    /// No pharmacy is fresh tonight (the feeds folder empty, missing or unmounted;
    /// every stock feed unreadable, rejected or left from an earlier night):
    /// publishing would only carry yesterday forward and hide that the feeds
    /// did not come, so nothing is published, even with --force. Says why.
    case noStockFeed(String)
    /// Quality gates failed against the current snapshot (--force overrides).
    case gates([QualityGates.Failure])

    /// The block as the JSON report, the JSON log and the metrics name it.
    public var code: String {
        switch self {
        case .emptyResult: return "empty_result"
        case .noStockFeed: return "no_stock_feed"
        case .gates: return "gates"
        }
    }

    public var description: String {
        switch self {
        case .emptyResult: return "no stock feed loaded any offer; an empty snapshot is never published"
        case .noStockFeed(let why): return "no stock feed loaded: \(why)"
        case .gates(let failures): return failures.map(\.description).joined(separator: "; ") + " (--force publishes anyway)"
        }
    }
}
