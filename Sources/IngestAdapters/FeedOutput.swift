import IngestCore

/// A record that can be named in a reject: its key and where it stood.
public protocol LocatedRecord: Sendable {
    var recordKey: String { get }
    var line: Int { get }
}

extension StockOffer: LocatedRecord {
    public var recordKey: String { aptcode }
}

extension PharmacyRecord: LocatedRecord {
    public var recordKey: String { id }
}

/// Where a feed's records go instead of memory, when the pipeline gives
/// one: accepted records to a sorter that spills to disk, rejects and
/// warnings to the run's logs. A feed of any size then costs a buffer.
///
/// The closures run during `parse`, on the thread that parses, and are not
/// `Sendable`: what they reach (a sorter, a task's log) stays on that
/// thread, and the compiler checks it, with no lock and no comment to trust.
public struct FeedSink<Record> {
    public var accept: (Record) -> Void
    public var reject: (Reject) -> Void
    public var warn: (Warning) -> Void

    public init(accept: @escaping (Record) -> Void, reject: @escaping (Reject) -> Void,
                warn: @escaping (Warning) -> Void) {
        self.accept = accept
        self.reject = reject
        self.warn = warn
    }
}

/// What an adapter made of one file: the records it accepted, the ones it
/// rejected, warnings, and possibly a failure that rejects the file whole.
///
/// `read == accepted + rejected` holds by construction: the only ways in are
/// `accept` and `reject` (and `revoke`, which moves an accepted record to the
/// rejects). With a `sink`, records, rejects and warnings pass through to it
/// and only their counts stay here.
public struct FeedOutput<Record: LocatedRecord> {
    public let file: String
    public private(set) var records: [Record] = []
    public private(set) var rejects: [Reject] = []
    public private(set) var warnings: [Warning] = []
    public private(set) var read = 0
    public private(set) var accepted = 0
    public private(set) var rejectCounts: [RejectReason: Int] = [:]
    /// Set when the file as a whole is bad; see `rejectingAll()`.
    public var failure: FeedFailure?
    /// Off for measuring a parser alone: records are counted, not kept.
    public var retainsRecords: Bool
    public let sink: FeedSink<Record>?
    /// Keys accepted so far, when no sink finds duplicates downstream.
    private var keys = Set<String>()

    public init(file: String, retainsRecords: Bool = true, sink: FeedSink<Record>? = nil) {
        self.file = file
        self.retainsRecords = retainsRecords
        self.sink = sink
    }

    /// False when a record with this key was accepted before: the adapter
    /// then rejects it `duplicate_key`. With a sink every key is first here:
    /// the sorter behind it finds duplicates in key order, in bounded memory,
    /// and `revoke`s them (a set of every key of a 1 GB feed was hundreds of MB).
    public mutating func isFirstOccurrence(_ key: String) -> Bool {
        sink != nil || keys.insert(key).inserted
    }

    public mutating func accept(_ record: Record) {
        read += 1
        accepted += 1
        if let sink { sink.accept(record) } else if retainsRecords { records.append(record) }
    }

    public mutating func reject(line: Int, key: String, reason: RejectReason, message: String, field: String? = nil) {
        read += 1
        record(Reject(file: file, line: line, key: key, reason: reason, message: message, field: field))
    }

    /// An accepted record found bad afterwards (a duplicate key, found when
    /// the sorted records are merged): it becomes a reject.
    public mutating func revoke(line: Int, key: String, reason: RejectReason, message: String, field: String? = nil) {
        accepted -= 1
        record(Reject(file: file, line: line, key: key, reason: reason, message: message, field: field))
    }

    private mutating func record(_ reject: Reject) {
        rejectCounts[reject.reason, default: 0] += 1
        if let sink { sink.reject(reject) } else { rejects.append(reject) }
    }

    public mutating func warn(line: Int, key: String, code: WarningCode, message: String) {
        let warning = Warning(file: file, line: line, key: key, code: code, message: message)
        if let sink { sink.warn(warning) } else { warnings.append(warning) }
    }

    /// Counted by reason, apart from `read` and `accepted`: `read ==
    /// accepted + rejected` is then a check (the fuzzers make it), not a definition.
    public var rejected: Int { rejectCounts.values.reduce(0, +) }
    /// Records a mapping's filter left out: rejects that count in neither side of the reject rate.
    public var filtered: Int { rejectCounts[RejectReason(rawValue: "filtered")] ?? 0 }

    /// The whole file rejected: nothing of it is loaded and nothing read is
    /// lost from the counts. Records rejected on their own keep their own
    /// reason, line and field (why they were bad must not vanish behind the
    /// file's fault); every accepted record becomes a reject with the
    /// failure's reason. (With a sink the accepted records are not here:
    /// the pipeline rejects them from its sorter; see `PharmacyFeedParser`.)
    public func rejectingAll() -> FeedOutput {
        guard let failure else { return self }
        var whole = FeedOutput(file: file, retainsRecords: retainsRecords)
        whole.failure = failure
        let prefix = "feed rejected whole (\(failure.reason)): \(failure.message)"
        whole.rejects = rejects
        whole.rejectCounts = rejectCounts
        whole.read = read - accepted
        for record in records {
            whole.reject(line: record.line, key: record.recordKey, reason: failure.reason, message: prefix)
        }
        // Records counted but not kept (parser measured alone) still count.
        for _ in 0..<(accepted - records.count) {
            whole.reject(line: 0, key: "", reason: failure.reason, message: prefix)
        }
        whole.rejects.sort { $0.line < $1.line }
        return whole
    }
}
