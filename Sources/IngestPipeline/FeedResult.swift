import IngestCore

/// One input file's line in the report and the manifest.
public struct FeedResult: Sendable {
    public var file: String
    public var size: Int64
    public var sha256: String
    public var kind: String?
    public var adapter: String?
    public var outcome: FeedOutcome
    public var pharmacyID: String?
    public var exportedAt: String?
    public var read = 0
    public var accepted = 0
    public var rejectsByReason: [RejectReason: Int] = [:]
    /// Why the file was rejected whole or skipped, as a code (`not_newer`).
    public var reason: String?
    /// Why the file was rejected whole, skipped or superseded, for a person.
    public var message: String?

    /// Judged on an earlier night and not read again (`FeedLedger`): counted, not listed, not mailed.
    public var earlierNight = false

    public var rejected: Int { rejectsByReason.values.reduce(0, +) }

    /// A feed the operator should look at: not loaded (rejected, skipped,
    /// unrecognised), or loaded with rejects. The text report lists only
    /// these unless `--verbose`; the HTML report marks them and puts them first.
    public var needsAttention: Bool {
        if earlierNight { return false }
        switch outcome {
        case .loaded, .superseded, .carriedOver: return rejected > 0
        case .rejected, .skipped, .unreadable, .unrecognised, .quarantined: return true
        }
    }

    init(file: String, size: Int64, sha256: String, kind: String?, adapter: String?, outcome: FeedOutcome) {
        self.file = file
        self.size = size
        self.sha256 = sha256
        self.kind = kind
        self.adapter = adapter
        self.outcome = outcome
    }

    /// The file rejected whole: its outcome, reason code and message ("reason at line n: …").
    mutating func reject(_ failure: FeedFailure) {
        outcome = .rejected
        reason = failure.reason.rawValue
        message = failure.line > 0 ? "\(failure.reason) at line \(failure.line): \(failure.message)" : "\(failure.reason): \(failure.message)"
    }

    mutating func count<Record>(_ output: FeedOutput<Record>) {
        read = output.read
        accepted = output.accepted
        rejectsByReason = output.rejectCounts
    }
}

import IngestAdapters
import IngestSnapshot

extension FeedResult {
    /// This file's entry in the manifest's `inputs` and the JSON report's `feeds`.
    var manifestInput: Manifest.Input {
        Manifest.Input(
            file: file, size: size, sha256: sha256, kind: kind, adapter: adapter, outcome: outcome.rawValue,
            pharmacyId: pharmacyID, exportedAt: exportedAt, read: read, accepted: accepted, rejected: rejected,
            rejectsByReason: Dictionary(uniqueKeysWithValues: rejectsByReason.map { ($0.key.rawValue, $0.value) }),
            reason: reason, message: message)
    }
}
