import Foundation
import IngestPipeline
import Synchronization

/// One live line at the foot of a terminal: the phase, its progress, the
/// rates (MB/s and offers/s), the time elapsed and, where the phase has a
/// measure, the time left. Redrawn in place four times a second, so that the
/// clock moves through phases that report nothing (indexes, the publish);
/// log lines are written above it (`printAbove`), never through it. Only
/// for a terminal: cron's stderr gets no progress at all.
final class TerminalStatusLine: Sendable {
    /// What is drawn, in a `Mutex`: updates come from the writer thread, redraws from the timer's.
    private struct State {
        var progress: RunProgress?
        var phaseStarted = Date()
        var drawn = false
        var timer: DispatchSourceTimer?
    }

    private let runStarted = Date()
    private let state = Mutex(State())

    func start() {
        // Made under the lock, so the timer (not Sendable) never leaves the state.
        state.withLock { state in
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "ingest.status-line"))
            timer.schedule(deadline: .now() + 0.25, repeating: 0.25)
            timer.setEventHandler { [weak self] in self?.redraw() }
            timer.resume()
            state.timer = timer
        }
    }

    /// A new phase shows at once; progress within a phase waits for the timer.
    func update(_ next: RunProgress) {
        state.withLock { state in
            let newPhase = state.progress?.phase != next.phase
            if newPhase { state.phaseStarted = Date() }
            state.progress = next
            if newPhase { draw(&state) }
        }
    }

    /// Writes `text` (ending in a newline) above the status line.
    func printAbove(_ text: String) {
        state.withLock { state in
            write("\r\u{1B}[K" + text + (state.drawn ? line(state) : ""))
        }
    }

    /// Clears the line for good: the report follows.
    func finish() {
        state.withLock { state in
            state.timer?.cancel()
            state.timer = nil
            if state.drawn { write("\r\u{1B}[K") }
            state.drawn = false
            state.progress = nil
        }
    }

    private func redraw() {
        state.withLock { draw(&$0) }
    }

    private func draw(_ state: inout State) {
        guard state.progress != nil else { return }
        state.drawn = true
        write("\r\u{1B}[K" + line(state))
    }

    /// The line, cut to the terminal's width so that it never wraps (a wrapped line cannot be redrawn in place).
    private func line(_ state: State) -> String {
        guard let progress = state.progress else { return "" }
        let text = Self.describe(progress, phaseSeconds: Date().timeIntervalSince(state.phaseStarted), runSeconds: Date().timeIntervalSince(runStarted))
        return String(text.prefix(max(20, Self.columns() - 1)))
    }

    /// `parsing stock feeds  42%  356.1/851.0 MB  41.2 MB/s  1.2 M offers, 143k/s  elapsed 0:12  left 0:17`.
    static func describe(_ progress: RunProgress, phaseSeconds: Double, runSeconds: Double) -> String {
        var parts = [progress.phase]
        if let fraction = progress.fraction {
            parts.append(String(format: "%3d%%", Int(fraction * 100)))
            parts.append(String(format: "%.1f/%.1f MB", Double(progress.doneBytes) / 1e6, Double(progress.totalBytes) / 1e6))
            if phaseSeconds > 0.5 {
                parts.append(String(format: "%.1f MB/s", Double(progress.doneBytes) / 1e6 / phaseSeconds))
                parts.append("\(count(Double(progress.offers))) offers, \(count(Double(progress.offers) / phaseSeconds))/s")
            }
        }
        parts.append("elapsed \(clock(runSeconds))")
        if let fraction = progress.fraction, fraction > 0.02, fraction < 1, phaseSeconds > 1 {
            parts.append("left \(clock(phaseSeconds / fraction - phaseSeconds))")
        }
        return parts.joined(separator: "  ")
    }

    /// 950, 12.3k, 1.2 M.
    static func count(_ value: Double) -> String {
        switch value {
        case ..<1_000: return String(Int(value))
        case ..<1_000_000: return String(format: "%.1fk", value / 1_000)
        default: return String(format: "%.1f M", value / 1_000_000)
        }
    }

    /// 0:07, 12:34, 1:02:03.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.down))
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }

    private static func columns() -> Int {
        var size = winsize()
        return ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
