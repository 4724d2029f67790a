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

/// What an adapter made of one file: the records it accepted, the ones it
/// rejected, warnings, and possibly a failure that rejects the file whole.
///
/// `read == accepted + rejects.count` holds by construction: the only ways
/// in are `accept` and `reject`.
public struct FeedOutput<Record: LocatedRecord>: Sendable {
    public let file: String
    public private(set) var records: [Record] = []
    public private(set) var rejects: [Reject] = []
    public private(set) var warnings: [Warning] = []
    public private(set) var read = 0
    public private(set) var accepted = 0
    /// Set when the file as a whole is bad; see `rejectingAll()`.
    public var failure: FeedFailure?
    /// Off for measuring a parser alone: records are counted, not kept.
    public var retainsRecords: Bool

    public init(file: String, retainsRecords: Bool = true) {
        self.file = file
        self.retainsRecords = retainsRecords
    }

    public mutating func accept(_ record: Record) {
        read += 1
        accepted += 1
        if retainsRecords { records.append(record) }
    }

    public mutating func reject(line: Int, key: String, reason: RejectReason, message: String, field: String? = nil) {
        read += 1
        rejects.append(Reject(file: file, line: line, key: key, reason: reason, message: message, field: field))
    }

    public mutating func warn(line: Int, key: String, code: WarningCode, message: String) {
        warnings.append(Warning(file: file, line: line, key: key, code: code, message: message))
    }

    public var rejected: Int { rejects.count }

    /// The whole file rejected: nothing of it is loaded and nothing read is
    /// lost from the counts. Records rejected on their own keep their own
    /// reason, line and field (why they were bad must not vanish behind the
    /// file's fault); every accepted record becomes a reject with the
    /// failure's reason.
    public func rejectingAll() -> FeedOutput {
        guard let failure else { return self }
        var whole = FeedOutput(file: file, retainsRecords: retainsRecords)
        whole.failure = failure
        let prefix = "feed rejected whole (\(failure.reason)): \(failure.message)"
        whole.rejects = rejects
        whole.read = rejects.count
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
