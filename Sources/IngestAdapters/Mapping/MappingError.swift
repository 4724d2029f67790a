/// A mapping file that cannot work, named down to the key, found when the
/// mappings are loaded: before any feed is read.
public struct MappingError: Error, Sendable, CustomStringConvertible, Equatable {
    public let file: String
    /// `section.key`, or nil when the whole file is at fault.
    public let key: String?
    public let message: String

    public init(file: String, key: String?, message: String) {
        self.file = file
        self.key = key
        self.message = message
    }

    public var description: String {
        "\(file)" + (key.map { ": [\($0)]" } ?? "") + ": \(message)"
    }
}
