/// What became of one file of the feeds folder; the manifest's `outcome`.
public enum FeedOutcome: String, Sendable, Codable, CaseIterable {
    /// Its records are in the snapshot (those not rejected one by one).
    case loaded
    /// Rejected whole: nothing of it is in the snapshot.
    case rejected
    /// Not read: a symbolic link, a directory, a hidden file.
    case skipped
    /// A newer valid feed of the same pharmacy (or a newer list) counts tonight.
    case superseded
    /// No adapter claims it.
    case unrecognised
    /// Missing or rejected tonight; the previous snapshot's data is kept.
    case carriedOver = "carried_over"
    /// Present but cannot be opened or read (permissions, I/O error): its
    /// pharmacy is carried over, and the night says so even under `--quiet`.
    case unreadable
    /// Set aside by the operator (`ingest quarantine`): not read; its pharmacy is carried over.
    case quarantined
}
