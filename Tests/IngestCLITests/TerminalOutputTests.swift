import Foundation
import IngestPipeline
import IngestTestSupport
import Testing
@testable import IngestCLI

/// What a run shows on a terminal (a live status line, logs above it, a
/// coloured report) and what cron gets instead (the same report, plain, and
/// no progress at all). The terminal is a real pseudo-terminal, made by
/// util-linux's `script`.
@Suite struct TerminalOutputTests {
    @Test func theStatusLineSaysPhaseProgressRatesElapsedAndTimeLeft() {
        let parsing = RunProgress(phase: "parsing stock feeds", doneBytes: 425_500_000, totalBytes: 851_000_000, offers: 2_500_000)
        #expect(TerminalStatusLine.describe(parsing, phaseSeconds: 10, runSeconds: 75)
            == "parsing stock feeds   50%  425.5/851.0 MB  42.5 MB/s  2.5 M offers, 250.0k/s  elapsed 1:15  left 0:10")
        // A phase with no measure of its own: the clock only.
        #expect(TerminalStatusLine.describe(RunProgress(phase: "building indexes"), phaseSeconds: 4, runSeconds: 3_725)
            == "building indexes  elapsed 1:02:05")
        // Too early for a rate: none is guessed.
        #expect(TerminalStatusLine.describe(RunProgress(phase: "parsing stock feeds", doneBytes: 1_000_000, totalBytes: 4_000_000, offers: 10),
                                            phaseSeconds: 0.2, runSeconds: 0.3)
            == "parsing stock feeds   25%  1.0/4.0 MB  elapsed 0:00")
    }

    private func feeds(_ temporary: TemporaryDirectory) -> String {
        for pharmacy in 0..<3 {
            var feed = RAXFeedBuilder(pharmacyID: "\(4000 + pharmacy)", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 1))
            for item in 0..<20 { feed.item("MM\(item)", price: pharmacy == 2 && item == 3 ? "x" : "1,00") }
            temporary.write("feeds/rax_\(pharmacy).txt", bytes: feed.bytes)
        }
        return "\(temporary.path)/feeds"
    }

    @Test func onATerminalTheStatusLineStaysBelowTheLogsAndTheReportHasColour() throws {
        let temporary = TemporaryDirectory()
        let command = [RepositoryFiles.ingestBinary, "--feeds", feeds(temporary), "--snapshots", "\(temporary.path)/s"]
            .map { "'\($0)'" }.joined(separator: " ")
        let typescript = "\(temporary.path)/typescript"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["--quiet", "--return", "--command", command, typescript]
        process.standardOutput = FileHandle.nullDevice
        // As a terminal sets it; Rainbow colours only for a known terminal type, and never under NO_COLOR.
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        environment["NO_COLOR"] = nil
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let screen = try String(contentsOfFile: typescript, encoding: .utf8)
        let clear = "\r\u{1B}[K"
        let phases = ["reading reference data", "parsing stock feeds", "building indexes", "checking and publishing"]
        for phase in phases {
            #expect(screen.contains(clear + phase), "\(phase)")
        }
        // Each log line clears the status line, takes a line of its own, and the status line is drawn again below it.
        let logs = screen.components(separatedBy: clear).filter { $0.contains(" info ingest: ") }
        #expect(logs.count >= 4)
        for chunk in logs {
            let parts = chunk.components(separatedBy: "\r\n")
            #expect(parts.count == 2 && parts[0].first?.isNumber == true, "\(chunk.debugDescription)")
            #expect(parts.last.map { last in phases.contains { last.hasPrefix($0) } } == true, "\(chunk.debugDescription)")
        }
        // In swift-log's own stream format (StreamLogHandler), as without a terminal: the source module in brackets.
        #expect(logs.contains { $0.contains(" info ingest: event=phase_done ") && $0.hasSuffix("[IngestPipeline] phase done\r\n" + $0.components(separatedBy: "\r\n").last!) })
        // Gone before the report, which has colour.
        #expect(screen.contains(clear + "ingest run"))
        #expect(screen.contains("\u{1B}[32;1mPUBLISHED "))
    }

    @Test func cronGetsThePlainReportAndNoProgress() throws {
        let temporary = TemporaryDirectory()
        let result = try CommandRunner.ingest(["--feeds", feeds(temporary), "--snapshots", "\(temporary.path)/s"])
        #expect(result.status == 0)
        #expect(!result.stdout.contains("\u{1B}") && !result.stderr.contains("\u{1B}") && !result.stderr.contains("\r"))
        #expect(!result.stderr.contains("progress"))
        #expect(result.stdout.hasPrefix("ingest run\nPUBLISHED "))
    }
}
