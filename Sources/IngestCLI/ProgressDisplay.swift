import Foundation
import Logging

/// Progress of a run by bytes of stock feeds processed: a bar redrawn in
/// place on a terminal, a plain line at each quarter otherwise (cron mail
/// stays short and readable), or, with `--log-format json`, a `progress`
/// event at each quarter, so that every line on stderr is JSON.
final class ProgressDisplay {
    enum Mode {
        case text
        case events(Logger)
    }

    private let mode: Mode
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private var lastQuarter = -1
    private var lastDraw = Date.distantPast

    init(mode: Mode) {
        self.mode = mode
    }

    func update(done: Int64, total: Int64) {
        guard total > 0 else { return }
        let fraction = Double(done) / Double(total)
        if case .text = mode, isTerminal {
            guard done == total || Date().timeIntervalSince(lastDraw) > 0.1 else { return }
            lastDraw = Date()
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            let line = String(format: "\r[%@] %3d%%  %.1f / %.1f MB", bar, Int(fraction * 100), Double(done) / 1e6, Double(total) / 1e6)
            FileHandle.standardError.write(Data((line + (done == total ? "\n" : "")).utf8))
            return
        }
        let quarter = Int(fraction * 4)
        guard quarter > lastQuarter else { return }
        lastQuarter = quarter
        switch mode {
        case .text:
            FileHandle.standardError.write(Data(String(format: "progress: %d%% of %.1f MB of stock feeds\n", quarter * 25, Double(total) / 1e6).utf8))
        case .events(let logger):
            logger.info("progress", metadata: [
                "event": "progress", "phase": "stock feeds", "percent": .stringConvertible(quarter * 25),
                "done_bytes": .stringConvertible(Int(done)), "total_bytes": .stringConvertible(Int(total)),
            ])
        }
    }
}
