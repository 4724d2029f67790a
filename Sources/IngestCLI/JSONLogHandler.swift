import Foundation
import IngestCore
import Logging

/// swift-log handler writing one JSON object a line to stderr, for log
/// shippers: `time` (UTC, milliseconds), `level`, `label`, `message`, then
/// the metadata as fields. Numbers and booleans logged as such
/// (`.stringConvertible(3.89)`) stay numbers, so a shipper can sum and
/// compare them; everything else is a string.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    init(label: String) {
        self.label = label
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var object: [String: Any] = [
            "time": MachineTime.timestamp(Date()),
            "level": event.level.rawValue,
            "label": label,
            "message": event.message.description,
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            object[key] = Self.json(value)
        }
        Self.write(object)
    }

    /// One object as a line on stderr. A value JSONSerialization refuses
    /// (NaN, infinity) is written as its text instead of dropping the line.
    static func write(_ object: [String: Any]) {
        let safe = JSONSerialization.isValidJSONObject(object) ? object : object.mapValues { "\($0)" }
        // Valid by the check above: a failure here has nothing left to report through.
        guard var data = try? JSONSerialization.data(withJSONObject: safe, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        data.append(10)
        FileHandle.standardError.write(data)
    }

    static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): return text
        case .stringConvertible(let convertible):
            switch convertible {
            case let number as Int: return number
            case let number as Int64: return number
            case let number as Double: return number.isFinite ? number : "\(number)" as Any
            case let flag as Bool: return flag
            default: return convertible.description
            }
        case .array(let values): return values.map(json)
        case .dictionary(let values): return values.mapValues(json)
        }
    }
}
