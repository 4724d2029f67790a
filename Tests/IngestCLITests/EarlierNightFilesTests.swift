import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// Issue 44, item 6: an old rejected file left in the feeds folder was
/// reported every night (cron mailed every night). A file a published night
/// rejected for its own content is not read again: its manifest line stays,
/// the report counts it, `--quiet` says nothing; `ingest feeds prune` removes
/// what earlier nights loaded or rejected.
@Suite struct EarlierNightFilesTests {
    private func night(_ temporary: TemporaryDirectory, _ day: Int, _ extra: [String] = []) throws -> CommandResult {
        try CommandRunner.ingest(["--feeds", "feeds", "--snapshots", "s", "--as-of", "2026-11-\(day)T06:00:00+02:00",
                                  "--metrics-file", "ingest.prom"] + extra, in: temporary.path)
    }

    private func send(_ temporary: TemporaryDirectory, day: Int) {
        var feed = RAXFeedBuilder(pharmacyID: "3001", exportedAt: "202611\(day - 1)T2305")
        feed.item("MM1", name: "TOODE", price: "1,00", quantity: "\(day)")
        temporary.write("feeds/rax_3001_\(day).txt", bytes: feed.bytes)
    }

    @Test func aRejectedFileIsReportedOnceThenCountedAndPruned() throws {
        let temporary = TemporaryDirectory()
        send(temporary, day: 21)
        var cut = RAXFeedBuilder(pharmacyID: "3002", exportedAt: "20261120T2305")
        cut.item("MM1", name: "TOODE", price: "2,00", quantity: "1")
        cut.includeTrailer = false
        temporary.write("feeds/rax_3002.txt", bytes: cut.bytes)

        let first = try night(temporary, 21, ["--quiet"])
        #expect(first.status == 0)
        #expect(first.stdout.contains("\n  rejected: rax_3002.txt (pharmacy 3002): trailer_mismatch at line 2: trailer (T record) missing: the file is truncated\n"), "\(first.stdout)")

        // The next night: the same file, not mailed again; its line stays in the manifest; the report counts it.
        send(temporary, day: 22)
        let second = try night(temporary, 22, ["--quiet"])
        #expect(second.status == 0 && second.stdout == "", "\(second.stdout)")
        let directory = SnapshotDirectory(path: "\(temporary.path)/s")
        let manifest = try directory.readManifest(try #require(directory.currentVersion()))
        let line = try #require(manifest.inputs.first { $0.file == "rax_3002.txt" })
        #expect(line.outcome == "rejected" && line.reason == "trailer_mismatch")
        #expect(line.message == "rejected on 2026-11-21 (trailer_mismatch); the same file, not read again: ingest feeds prune removes it")
        #expect(try PrometheusTextfile(contentsOfFile: "\(temporary.path)/ingest.prom")["ingest_feeds_left_from_earlier_nights"] == 1)
        send(temporary, day: 23)
        let third = try night(temporary, 23)
        #expect(third.stdout.contains("\n1 file left from earlier nights, already judged and not read again (ingest feeds prune removes them)\n"),
                "\(third.stdout)")
        #expect(!third.stdout.contains("rax_3002.txt"))

        // Rewritten (another export with the same name): judged again.
        cut.exportedAt = "20261123T2305"
        temporary.write("feeds/rax_3002.txt", bytes: cut.bytes)
        send(temporary, day: 24)
        let fourth = try night(temporary, 24, ["--quiet"])
        #expect(fourth.stdout.contains("\n  rejected: rax_3002.txt (pharmacy 3002): trailer_mismatch"), "\(fourth.stdout)")

        // Prune: files loaded by a kept version, or rejected for good (the versions were made today: --older-than 0).
        let dry = try CommandRunner.ingest(["feeds", "prune", "--older-than", "0", "--dry-run", "--feeds", "feeds", "--snapshots", "s"], in: temporary.path)
        #expect(dry.status == 0)
        #expect(dry.stdout.contains("would remove rax_3001_21.txt (loaded on "), "\(dry.stdout)")
        #expect(dry.stdout.contains("would remove rax_3002.txt (rejected trailer_mismatch on 2026-11-24)"), "\(dry.stdout)")
        let names = try FileManager.default.contentsOfDirectory(atPath: "\(temporary.path)/feeds").sorted()
        #expect(names == ["rax_3001_21.txt", "rax_3001_22.txt", "rax_3001_23.txt", "rax_3001_24.txt", "rax_3002.txt"])
        let pruned = try CommandRunner.ingest(["feeds", "prune", "--older-than", "0", "--feeds", "feeds", "--snapshots", "s"], in: temporary.path)
        #expect(pruned.status == 0)
        #expect(pruned.stdout.split(separator: "\n").count == 5, "\(pruned.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(temporary.path)/feeds").isEmpty)
        let nothing = try CommandRunner.ingest(["feeds", "prune", "--older-than", "30", "--feeds", "feeds", "--snapshots", "s"], in: temporary.path)
        #expect(nothing.stdout == "nothing to prune: no file in feeds was judged 30 or more days ago\n")
    }
}
