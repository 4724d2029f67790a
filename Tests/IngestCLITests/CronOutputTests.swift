import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// What the cron job and scripts read (issue 35, item 3): `--quiet`,
/// `--report -` and `--dry-run --detailed-exitcode`, by exact output and exit code.
@Suite struct CronOutputTests {
    /// Two pharmacies' RAX exports; `cut` leaves one without its trailer.
    private func feeds(_ temporary: TemporaryDirectory, cut: Bool = false) -> String {
        let feeds = temporary.subdirectory("feeds")
        for (index, id) in ["3001", "3002"].enumerated() {
            var feed = RAXFeedBuilder(pharmacyID: id, exportedAt: "20261120T2305")
            for item in 0..<4 { feed.item("MM\(item)", name: "TOODE \(item)", price: "\(item + index + 1),00", quantity: "\(item + index)") }
            feed.includeTrailer = !(cut && index == 1)
            temporary.write("feeds/rax_\(id).txt", bytes: feed.bytes)
        }
        return feeds
    }

    private func run(_ temporary: TemporaryDirectory, _ extra: [String]) throws -> CommandResult {
        try CommandRunner.ingest(["--feeds", "\(temporary.path)/feeds", "--snapshots", "\(temporary.path)/s", "--mappings", RepositoryFiles.mappingsDirectory,
                                  "--as-of", "2026-11-21T06:00:00+02:00"] + extra)
    }

    @Test func quietSaysNothingOnACleanNightAndOnlyWhatNeedsAttentionOtherwise() throws {
        let temporary = TemporaryDirectory()
        _ = feeds(temporary)
        let clean = try run(temporary, ["--quiet"])
        #expect(clean.status == 0)
        #expect(clean.stdout == "")
        #expect(clean.stderr == "")

        let other = TemporaryDirectory()
        _ = feeds(other, cut: true)
        let cut = try run(other, ["--quiet"])
        #expect(cut.status == 0)
        let lines = cut.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines.last == "", "\(cut.stdout)")
        #expect(lines.first?.hasPrefix("PUBLISHED ") == true && lines.first?.contains(": 1 pharmacy (1 fresh, 0 stale), 4 offers, 4 rejects, 2 warnings in ") == true)
        #expect(lines.dropFirst().first == "  rejected: rax_3002.txt (pharmacy 3002): trailer_mismatch at line 5: trailer (T record) missing: the file is truncated")
        #expect(cut.stderr == "")
    }

    @Test func reportDashWritesOnlyJSONToStdout() throws {
        let temporary = TemporaryDirectory()
        _ = feeds(temporary)
        let result = try run(temporary, ["--report", "-"])
        #expect(result.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(document["published"] as? Bool == true)
        #expect(result.stderr.contains("ingest run\nPUBLISHED "))
    }

    @Test func detailedExitcodeIsTwoWhenTheRunWouldPublishAndZeroWhenNothingIsNew() throws {
        let temporary = TemporaryDirectory()
        _ = feeds(temporary)
        #expect(try run(temporary, ["--dry-run", "--detailed-exitcode", "--quiet"]).status == 2)
        #expect(try run(temporary, []).status == 0)
        let again = try run(temporary, ["--dry-run", "--detailed-exitcode"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("\nDRY RUN, nothing new to publish (current "))
        let alone = try run(temporary, ["--detailed-exitcode"])
        #expect(alone.status == 64)
        #expect(alone.stderr.hasPrefix("Error: --detailed-exitcode goes with --dry-run\n"))
    }
}
