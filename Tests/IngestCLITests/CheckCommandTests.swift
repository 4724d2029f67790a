import Foundation
import IngestGenerator
import IngestTestSupport
import Testing
@testable import IngestCLI

/// `ingest check` judges each file as the import would, and says so by its exit code.
@Suite struct CheckCommandTests {
    /// The per-file table of a printed report: from the header line to `total`.
    private func table(_ stdout: String) -> [String] {
        let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("FILE") }),
              let end = lines.firstIndex(where: { $0.hasPrefix("total") }) else { return [] }
        return Array(lines[start...end])
    }

    @Test func checkGivesEveryFileTheOutcomeAndCountsOfTheImport() throws {
        let temporary = TemporaryDirectory()
        var options = FeedGenerator.Options(pharmacies: 12, items: 60, seed: 7, badRate: 0.04,
                                            rulesSource: "\(RepositoryFiles.mappingsDirectory)/patient_price_rules.toml")
        options.formats = [.rax, .noom, .csv, .chain]
        options.pharmaciesPerChainFile = 2
        _ = try FeedGenerator(options: options).generate(into: temporary.path)
        let feeds = "\(temporary.path)/feeds"
        let mappings = "\(temporary.path)/mappings"
        let files = try FileManager.default.contentsOfDirectory(atPath: feeds).sorted().map { "\(feeds)/\($0)" }
        let dryRun = try CommandRunner.ingest(["--feeds", feeds, "--mappings", mappings, "--snapshots", "\(temporary.path)/s", "--dry-run", "--verbose"])
        let check = try CommandRunner.ingest(["check", "--mappings", mappings] + files)
        #expect(table(check.stdout).count > 10)
        #expect(table(check.stdout) == table(dryRun.stdout))
        // The faulty folder has feeds rejected whole: check says so by its exit code.
        #expect(check.status == ExitStatus.fileRejected.rawValue)
        #expect(check.stdout.hasPrefix("ingest check: nothing is written\n"))
    }

    @Test func aTruncatedFeedIsRejectedWholeAndEveryRejectIsListedWithAll() throws {
        let temporary = TemporaryDirectory()
        var feed = RAXFeedBuilder(pharmacyID: "9", exportedAt: "20240101T1200")
        for index in 0..<8 { feed.item("A\(index)", price: index == 0 ? "x" : "1,00") }
        feed.includeTrailer = false
        let path = temporary.write("rax_9.txt", bytes: feed.bytes)
        let result = try CommandRunner.ingest(["check", "--mappings", RepositoryFiles.mappingsDirectory, "--all", path])
        #expect(result.status == ExitStatus.fileRejected.rawValue)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout == """
            ingest check: nothing is written
            FILE       PHARMACY  ADAPTER  OUTCOME                         READ  ACCEPTED  REJECTED
            rax_9.txt  9         rax      rejected (trailer_mismatch)        8         0         8
                         rejected: bad_price 1, trailer_mismatch 7
                         trailer_mismatch at line 9: trailer (T record) missing: the file is truncated
            total                                                            8         0         8

            rejects by reason:
              bad_price: 1
                rax_9.txt:2 [A0] price: price 'x' is not a decimal-comma amount with up to 2 decimals
              trailer_mismatch: 7
            \((1..<8).map { "    rax_9.txt:\($0 + 2) [A\($0)] feed rejected whole (trailer_mismatch): trailer (T record) missing: the file is truncated" }.joined(separator: "\n"))

            """)
        // A good file: exit 0.
        let good = try CommandRunner.ingest(["check", "--mappings", RepositoryFiles.mappingsDirectory, RepositoryFiles.feed("rax_5060_201012302305.txt")])
        #expect(good.status == 0)
        #expect(good.stdout.contains("rax_5060_201012302305.txt  5060      rax      loaded"))
    }

    @Test func anUnrecognisedFileFailsTheCheck() throws {
        let temporary = TemporaryDirectory()
        let path = temporary.write("notes.txt", text: "nothing a feed looks like\n")
        let result = try CommandRunner.ingest(["check", "--mappings", RepositoryFiles.mappingsDirectory, path])
        #expect(result.status == ExitStatus.fileRejected.rawValue)
        #expect(result.stdout.contains("notes.txt  -         -        unrecognised"))
    }
}
