import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// Issue 44, item 7: the holes an attack on the newest surfaces found, each
/// as it was found, held closed.
@Suite struct AttackHoleTests {
    private func feed(_ temporary: TemporaryDirectory, pharmacy: String) -> String {
        var feed = RAXFeedBuilder(pharmacyID: pharmacy, exportedAt: RAXFeedBuilder.exportTime(daysAgo: 1))
        feed.item("MM1", price: "1,00")
        return temporary.write("feeds/rax_\(pharmacy).txt", bytes: feed.bytes)
    }

    /// On a first night `--report S/current` (the folder not there yet) once
    /// became `current` itself: a JSON file, and the next night exited 70.
    @Test func anOutputPathInASnapshotsFolderNotThereYetIsRefused() throws {
        let temporary = TemporaryDirectory()
        _ = feed(temporary, pharmacy: "2000")
        for option in ["--report", "--html", "--metrics-file"] {
            for target in ["s/current", "s/sub/../current", "\(temporary.path)/s/x.json", "s/deeper/x.json"] {
                let result = try CommandRunner.ingest(["--feeds", "feeds", "--snapshots", "s", option, target], in: temporary.path)
                #expect(result.status == 64, "\(option) \(target)")
                #expect(result.stderr.contains("\(option) \(target) lies in the snapshots folder s, which is ingest's own; write outputs elsewhere"),
                        "\(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: "\(temporary.path)/s"), "nothing is written")
            }
        }
        #expect(try CommandRunner.ingest(["--feeds", "feeds", "--snapshots", "s", "--report", "s-report.json"], in: temporary.path).status == 0)
    }

    /// A `quarantine.json` that is a link to nowhere once read as an empty list
    /// and let quarantined feeds back in: the run stops (70), as does `list`.
    @Test func aDanglingQuarantineLinkStopsTheRun() throws {
        let temporary = TemporaryDirectory()
        _ = feed(temporary, pharmacy: "2000")
        #expect(try CommandRunner.ingest(["--feeds", "feeds", "--snapshots", "s", "--quiet"], in: temporary.path).status == 0)
        #expect(symlink("/nowhere/quarantine.json", "\(temporary.path)/s/quarantine.json") == 0)
        let run = try CommandRunner.ingest(["--feeds", "feeds", "--snapshots", "s", "--quiet"], in: temporary.path)
        #expect(run.status == 70)
        #expect(run.stderr.contains("s/quarantine.json cannot be read as the quarantine list"), "\(run.stderr)")
        let list = try CommandRunner.ingest(["quarantine", "list", "--snapshots", "s"], in: temporary.path)
        #expect(list.status == 70)
    }

    /// 40 `quarantine add` at once once kept 2 of 40 entries (no lock).
    @Test func fortyParallelAddsKeepFortyEntries() throws {
        let temporary = TemporaryDirectory()
        _ = feed(temporary, pharmacy: "2000")
        #expect(try CommandRunner.ingest(["--feeds", "feeds", "--snapshots", "s", "--quiet"], in: temporary.path).status == 0)
        let files = (0..<40).map { index in temporary.write("bad/feed-\(index).txt", text: "bad feed \(index)\n") }
        // All started before any is waited for.
        let processes = try files.enumerated().map { index, file in
            try CommandRunner.startIngest(["quarantine", "add", file, "--snapshots", "\(temporary.path)/s", "--reason", "r\(index)"])
        }
        for process in processes { process.waitUntilExit() }
        #expect(processes.map(\.terminationStatus) == Array(repeating: 0, count: 40))
        let list = try Quarantine.load(from: SnapshotDirectory(path: "\(temporary.path)/s"))
        #expect(Set(list.entries.map(\.file)) == Set((0..<40).map { "feed-\($0).txt" }))
    }

    /// A reason (or a name) with escape sequences once reached the terminal raw.
    @Test func quarantineListEscapesControlCharacters() throws {
        let temporary = TemporaryDirectory()
        _ = feed(temporary, pharmacy: "2000")
        #expect(try CommandRunner.ingest(["--feeds", "feeds", "--snapshots", "s", "--quiet"], in: temporary.path).status == 0)
        let file = temporary.write("bad.txt", text: "bad\n")
        let added = try CommandRunner.ingest(["quarantine", "add", file, "--snapshots", "s", "--reason", "\u{1B}[2J\u{1B}]0;owned\u{07}wiped"],
                                             in: temporary.path)
        #expect(added.status == 0)
        let list = try CommandRunner.ingest(["quarantine", "list", "--snapshots", "s"], in: temporary.path)
        #expect(list.status == 0)
        #expect(!list.stdout.contains("\u{1B}") && !list.stdout.contains("\u{07}"))
        #expect(list.stdout.hasSuffix("  bad.txt  \\u{1B}[2J\\u{1B}]0;owned\\u{7}wiped\n"), "\(list.stdout)")
    }
}
