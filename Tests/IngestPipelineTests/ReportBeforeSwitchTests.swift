import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Synchronization
import Testing
@testable import IngestPipeline

/// Issue 35, item 6: the version's HTML report is written before `current`
/// switches, so a run killed after the switch still leaves it; a publish
/// that fails before the switch leaves no report of a version that never was.
@Suite struct ReportBeforeSwitchTests {
    @Test func theReportIsThereBeforeCurrentMoves() throws {
        let temporary = TemporaryDirectory()
        let snapshots = "\(temporary.path)/snapshots"
        var options = ImportOptions(feedsDirectory: RepositoryFiles.feedsDirectory, snapshotsDirectory: snapshots,
                                    mappingsDirectory: RepositoryFiles.mappingsDirectory, parseThreads: 2)
        options.reportPage = { report in Data("<p>\(report.publishedVersion ?? "none")</p>".utf8) }
        let seen = Mutex<[String]>([])
        let run = ImportRun(options: options)
        run.faultInjector = { step in
            guard step == .beforeSwitch else { return }
            let pages = (try? FileManager.default.contentsOfDirectory(atPath: snapshots))?.filter { $0.hasSuffix(".report.html") } ?? []
            let current = SnapshotDirectory(path: snapshots).currentVersion()
            seen.withLock { $0 = pages.map { "\($0) current=\(current ?? "none")" } }
        }
        let version = try #require(try run.run().publishedVersion)
        #expect(seen.withLock { $0 } == ["\(version).report.html current=none"])
        #expect(try String(contentsOfFile: "\(snapshots)/\(version).report.html", encoding: .utf8) == "<p>\(version)</p>")

        // A failure just before the switch removes the page with the version's other files.
        struct Injected: Error {}
        let failing = ImportRun(options: { var next = options; next.firstNight = true; return next }())
        failing.faultInjector = { if $0 == .beforeSwitch { throw Injected() } }
        #expect(throws: Injected.self) { try failing.run() }
        let pages = try FileManager.default.contentsOfDirectory(atPath: snapshots).filter { $0.hasSuffix(".report.html") }
        #expect(pages == ["\(version).report.html"])
    }
}
