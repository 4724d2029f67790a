import Foundation
import IngestPipeline
import Logging

/// Where a run's progress goes: a live status line on a terminal; nothing
/// when stderr is not a terminal (cron mail holds the report, not a
/// progress trail); with `--log-format json`, a `progress` event as each
/// phase begins and at each quarter of the stock feeds, so that every line
/// on stderr is JSON.
final class ProgressDisplay {
    enum Mode {
        case terminal(TerminalStatusLine)
        case silent
        case events(Logger)
    }

    private let mode: Mode
    private var lastPhase: String?
    private var lastQuarter = -1

    init(mode: Mode) {
        self.mode = mode
    }

    func update(_ progress: RunProgress) {
        switch mode {
        case .terminal(let line):
            line.update(progress)
        case .silent:
            return
        case .events(let logger):
            if progress.phase != lastPhase {
                lastPhase = progress.phase
                lastQuarter = -1
                if progress.fraction == nil {
                    logger.info("progress", metadata: ["event": "progress", "phase": "\(progress.phase)"])
                    return
                }
            }
            guard let fraction = progress.fraction else { return }
            let quarter = Int(fraction * 4)
            guard quarter > lastQuarter else { return }
            lastQuarter = quarter
            logger.info("progress", metadata: [
                "event": "progress", "phase": "\(progress.phase)", "percent": .stringConvertible(quarter * 25),
                "done_bytes": .stringConvertible(Int(progress.doneBytes)), "total_bytes": .stringConvertible(Int(progress.totalBytes)),
                "offers": .stringConvertible(progress.offers),
            ])
        }
    }
}
