import ArgumentParser
import Foundation
import Logging

/// How a run talks to the cron job and its operator: log format and the
/// Prometheus metrics file.
struct OutputOptions: ParsableArguments {
    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(name: .long, help: "Log lines on stderr: text or json (one object a line).")
    var logFormat: LogFormat = .text

    @Option(name: .long, help: "Write a Prometheus textfile with the run's metrics here (also when the run fails).")
    var metricsFile: String?

    /// Sets up swift-log once for the process: info and above on stderr;
    /// above `statusLine` when a terminal shows one.
    /// `level`: the least a line needs to be written (`--quiet` raises it to errors).
    func bootstrapLogging(statusLine: TerminalStatusLine? = nil, level: Logger.Level = .info) {
        let format = logFormat
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler
            switch format {
            case .text:
                if let statusLine {
                    handler = StreamLogHandler.above(statusLine, label: label)
                } else {
                    handler = StreamLogHandler.standardError(label: label)
                }
            case .json:
                handler = JSONLogHandler(label: label)
            }
            handler.logLevel = max(handler.logLevel, level)
            return handler
        }
    }
}
