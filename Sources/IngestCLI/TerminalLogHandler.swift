import Foundation
import Logging

/// swift-log handler for a terminal with a live status line: each log line
/// in swift-log's own stream format (`time level label: metadata message`),
/// written above the status line so that neither breaks the other.
/// swift-log's `StreamLogHandler` cannot be pointed at the status line, so
/// this is its formatting, written again.
struct TerminalLogHandler: LogHandler {
    let label: String
    let statusLine: TerminalStatusLine
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        let time = formatter.string(from: Date())
        statusLine.printAbove("\(time) \(event.level) \(label):\(fields.isEmpty ? "" : " " + fields) \(event.message)\n")
    }
}
