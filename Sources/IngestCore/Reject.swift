/// Where a record stood in its input: the line of a text feed, or the index
/// of a repeated XML element.
public struct RecordLocation: Sendable, Hashable, Codable {
    public var file: String
    public var line: Int
    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }
}

/// One input record that did not reach the snapshot, and why. The rejects
/// file of a run is a list of these, one JSON object a line.
public struct Reject: Sendable, Hashable, Codable {
    public var file: String
    public var line: Int
    /// The record's key as far as it could be read (aptcode, pharmacy id, …).
    public var key: String
    public var reason: RejectReason
    public var message: String
    /// The field at fault, where one is.
    public var field: String?

    public init(file: String, line: Int, key: String, reason: RejectReason, message: String, field: String? = nil) {
        self.file = file
        self.line = line
        self.key = key
        self.reason = reason
        self.message = message
        self.field = field
    }
}

/// A record kept despite a problem an operator should hear of.
public struct Warning: Sendable, Hashable, Codable {
    public var file: String
    public var line: Int
    public var key: String
    public var code: WarningCode
    public var message: String

    public init(file: String, line: Int, key: String, code: WarningCode, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.code = code
        self.message = message
    }
}

/// A problem that rejects a whole feed: every record read from it is
/// rejected with this reason, and nothing of it is loaded.
public struct FeedFailure: Error, Sendable, Hashable, Codable {
    public var reason: RejectReason
    public var message: String
    /// The line where the problem was found (0 for the file as a whole).
    public var line: Int

    public init(reason: RejectReason, message: String, line: Int = 0) {
        self.reason = reason
        self.message = message
        self.line = line
    }
}
