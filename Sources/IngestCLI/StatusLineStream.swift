import Foundation
import Logging

/// Where swift-log's `StreamLogHandler` writes on a terminal with a live
/// status line: each log line goes above the line (`printAbove`), so that
/// neither breaks the other, in swift-log's own stream format, the same as
/// without a terminal.
struct StatusLineStream: TextOutputStream, Sendable {
    let statusLine: TerminalStatusLine

    mutating func write(_ string: String) {
        statusLine.printAbove(string)
    }
}

extension StreamLogHandler {
    /// The handler for `label` writing above `statusLine`.
    static func above(_ statusLine: TerminalStatusLine, label: String) -> StreamLogHandler {
        StreamLogHandler(label: label, stream: StatusLineStream(statusLine: statusLine))
    }
}
