import Foundation
import IngestPipeline
import IngestSnapshot
import IngestTestSupport
import Testing

/// Issue 17: a killed dry run leaves its staging behind; the next run
/// (dry or not) finds it, removes it and says so. A live run's folder is
/// never touched.
@Suite struct ScratchCleanupTests {
    private func scratchFolders(_ parent: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []).filter { $0.hasPrefix(ScratchDirectory.namePrefix) }.sorted()
    }

    @Test func aKilledDryRunsStagingIsRemovedByTheNextRun() throws {
        let temporary = TemporaryDirectory()
        let scratchParent = temporary.subdirectory("tmp")
        let feeds = temporary.subdirectory("feeds")
        var feed = RAXFeedBuilder(pharmacyID: "7", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 1))
        for item in 0..<200_000 { feed.item(String(format: "MM%07d", item), name: "TOODE \(item)", price: "\(item % 90 + 1),00") }
        temporary.write("feeds/rax_7.txt", bytes: feed.bytes)
        let arguments = ["--feeds", feeds, "--snapshots", "\(temporary.path)/s", "--dry-run"]
        // Killed once its staging database exists: the moment a dry run has most to leave behind.
        let killed = try CommandRunner.ingestKilled(when: {
            scratchFolders(scratchParent).contains { FileManager.default.fileExists(atPath: "\(scratchParent)/\($0)/dry-run.sqlite") }
        }, arguments, environment: ["TMPDIR": scratchParent])
        try #require(killed, "the dry run ended before it could be killed")
        let left = scratchFolders(scratchParent)
        #expect(left.count == 1 && left[0].hasPrefix("ingest-scratch-dry-run-"))

        // A live run's folder (this test's own) must survive the sweep.
        let live = try ScratchDirectory(purpose: "dry-run", in: scratchParent)
        let next = try CommandRunner.ingest(arguments + ["--report", "\(temporary.path)/report.json"], in: nil, environment: ["TMPDIR": scratchParent])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stdout.contains("removed what killed runs left:\n  \(scratchParent)/\(left[0])\n"))
        #expect(scratchFolders(scratchParent) == [(live.path as NSString).lastPathComponent])
        let report = try JSONDecoder().decode(RunReportDocument.self, from: Data(contentsOf: URL(fileURLWithPath: "\(temporary.path)/report.json")))
        #expect(report.cleanedUp == ["\(scratchParent)/\(left[0])"])
    }
}
