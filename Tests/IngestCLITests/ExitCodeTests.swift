import IngestCore
import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestCLI

/// Each exit code `ingest --help` documents, produced for real where a test
/// can, and through the error mapping where the condition cannot be staged.
@Suite struct ExitCodeTests {
    private func feedsWithSamples(_ temporary: TemporaryDirectory) throws -> String {
        let feeds = temporary.subdirectory("feeds")
        for name in ["pharmacies.csv", "rax_5060_201012302305.txt", "rax_31937_201105192305.txt"] {
            try FileManager.default.copyItem(atPath: RepositoryFiles.feed(name), toPath: "\(feeds)/\(name)")
        }
        return feeds
    }

    @Test func helpListsEveryExitCode() throws {
        let result = try CommandRunner.ingest(["--help"])
        #expect(result.status == 0)
        for status in ExitStatus.allCases {
            #expect(result.stdout.contains("\(status.rawValue)"), "help lacks exit code \(status.rawValue)")
            #expect(result.stdout.contains(status.meaning), "help lacks meaning of \(status.rawValue)")
        }
    }

    /// Issue 35, item 5: docs/OPERATIONS.md's runbook has a row for every code of `--help`, with something to do.
    @Test func theRunbookSaysWhatToDoForEveryExitCode() throws {
        let runbook = try String(contentsOfFile: "\(RepositoryFiles.root)/docs/OPERATIONS.md", encoding: .utf8)
        let rows = runbook.split(separator: "\n").filter { $0.hasPrefix("| ") && $0.split(separator: "|").count == 3 }
        for status in ExitStatus.allCases {
            let row = rows.first { $0.hasPrefix("| \(status.rawValue) | \(status.meaning) | ") }
            #expect(row != nil, "docs/OPERATIONS.md's runbook has no row for exit code \(status.rawValue)")
            #expect((row?.split(separator: "|").last?.trimmingCharacters(in: .whitespaces).count ?? 0) > 10, "exit \(status.rawValue): nothing to do")
        }
        #expect(rows.filter { Int($0.split(separator: "|").first?.trimmingCharacters(in: .whitespaces) ?? "") != nil }.count == ExitStatus.allCases.count)
    }

    @Test func readmeListsEveryExitCode() throws {
        // Markdown's code spans aside, each line is --help's.
        let readme = try String(contentsOfFile: "\(RepositoryFiles.root)/README.md", encoding: .utf8).replacingOccurrences(of: "`", with: "")
        for status in ExitStatus.allCases {
            #expect(readme.contains("| \(status.rawValue) | \(status.meaning) |"), "README lacks exit code \(status.rawValue) as --help says it")
        }
    }

    @Test func success() throws {
        let temporary = TemporaryDirectory()
        let result = try CommandRunner.ingest(["--feeds", try feedsWithSamples(temporary), "--snapshots", "\(temporary.path)/s"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("published "))
        #expect(FileManager.default.fileExists(atPath: "\(temporary.path)/s/current"))
    }

    @Test func dryRunPrintsPerFeedCountsAndPublishesNothing() throws {
        let temporary = TemporaryDirectory()
        let result = try CommandRunner.ingest(["--feeds", try feedsWithSamples(temporary), "--snapshots", "\(temporary.path)/s", "--dry-run", "--verbose"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("READ"))
        #expect(result.stdout.contains("rax_5060_201012302305.txt"))
        #expect(!FileManager.default.fileExists(atPath: "\(temporary.path)/s"))
    }

    @Test(arguments: [["--no-such-flag"], ["--keep", "0"], ["--threads", "0"], ["--keep", "many"]])
    func usageErrors(arguments: [String]) throws {
        let result = try CommandRunner.ingest(arguments)
        #expect(result.status == ExitStatus.usage.rawValue)
    }

    @Test func emptyResult() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        let result = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", "\(temporary.path)/s"])
        #expect(result.status == ExitStatus.emptyResult.rawValue)
        #expect(result.stdout.contains("NOT PUBLISHED"))
    }

    /// An unmounted feeds folder is a night without feeds (issue 44): 65 and the reason, never "published".
    @Test func aMissingFeedsFolderIsNoStockFeed() throws {
        let temporary = TemporaryDirectory()
        let result = try CommandRunner.ingest(["--feeds", "\(temporary.path)/none", "--snapshots", "\(temporary.path)/s", "--quiet"])
        #expect(result.status == ExitStatus.emptyResult.rawValue)
        #expect(result.stdout.hasSuffix("\n  NOT PUBLISHED: no stock feed loaded: feeds folder \(temporary.path)/none does not exist or is not a directory (is it mounted?)\n"), "\(result.stdout)")
    }

    @Test func aNamedMappingsFolderThatIsMissingStopsTheRunBeforeAnyFeedIsRead() throws {
        let temporary = TemporaryDirectory()
        let feeds = try feedsWithSamples(temporary)
        let result = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", "\(temporary.path)/s", "--mappings", "\(temporary.path)/mapings"])
        #expect(result.status == ExitStatus.inputMissing.rawValue)
        #expect(result.stderr == "ingest: mappings directory \(temporary.path)/mapings (--mappings) does not exist or is not a directory\n")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: "\(temporary.path)/s"))
    }

    @Test func asOfTakesADateOrAnISOTimeAndNothingElse() throws {
        let temporary = TemporaryDirectory()
        let feeds = try feedsWithSamples(temporary)
        let bad = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", "\(temporary.path)/s", "--as-of", "yesterday"])
        #expect(bad.status == ExitStatus.usage.rawValue)
        #expect(bad.stderr.contains("--as-of"))
        let dated = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", "\(temporary.path)/s", "--as-of", "2011-05-20"])
        #expect(dated.status == 0)
        let snapshot = try SnapshotQuery(SnapshotDirectory(path: "\(temporary.path)/s").currentPath)
        #expect(snapshot.value("SELECT value FROM meta WHERE key = 'as_of'") == "2011-05-20T00:00:00+03:00")
        #expect(snapshot.value("SELECT value FROM meta WHERE key = 'run_date'") == "2011-05-20")
    }

    @Test func cannotWrite() throws {
        let temporary = TemporaryDirectory()
        // /proc takes no new directories, even for root.
        let result = try CommandRunner.ingest(["--feeds", try feedsWithSamples(temporary), "--snapshots", "/proc/ingest-test-snapshots"])
        #expect(result.status == ExitStatus.cannotWrite.rawValue)
        #expect(result.stderr.contains("/proc/ingest-test-snapshots"))
    }

    @Test func locked() throws {
        let temporary = TemporaryDirectory()
        let snapshots = SnapshotDirectory(path: "\(temporary.path)/s")
        try snapshots.create()
        let lock = try SnapshotLock(directory: snapshots)
        let result = try CommandRunner.ingest(["--feeds", try feedsWithSamples(temporary), "--snapshots", snapshots.path])
        #expect(result.status == ExitStatus.locked.rawValue)
        #expect(result.stderr.contains("PID \(getpid())"))
        withExtendedLifetime(lock) {}
    }

    @Test func configuration() throws {
        let temporary = TemporaryDirectory()
        let mapping = try String(contentsOfFile: "\(RepositoryFiles.mappingsDirectory)/zales24.mapping.toml", encoding: .utf8)
        temporary.write("mappings/a.mapping.toml", text: mapping)
        temporary.write("mappings/b.mapping.toml", text: mapping)
        let feeds = try feedsWithSamples(temporary)
        try FileManager.default.copyItem(atPath: RepositoryFiles.feed("zales24_export_2013-06-01.csv"), toPath: "\(feeds)/zales24_export_2013-06-01.csv")
        // A file two adapters claim is rejected on its own; the night goes on.
        let result = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", "\(temporary.path)/s", "--mappings", "\(temporary.path)/mappings"])
        #expect(result.status == ExitStatus.success.rawValue)
        #expect(result.stdout.contains("(mapping:a, mapping:b)"))
        let manifest = try SnapshotDirectory(path: "\(temporary.path)/s").readManifest(try #require(SnapshotDirectory(path: "\(temporary.path)/s").currentVersion()))
        let ambiguous = try #require(manifest.inputs.first { $0.file == "zales24_export_2013-06-01.csv" })
        #expect(ambiguous.outcome == "rejected" && ambiguous.reason == "ambiguous")
        temporary.write("mappings/b.mapping.toml", text: "[columns]\naptcode = 3\n")
        let invalid = try CommandRunner.ingest(["adapters", "--mappings", "\(temporary.path)/mappings"])
        #expect(invalid.status == ExitStatus.configuration.rawValue)
        #expect(invalid.stderr.contains("b.mapping.toml"))
    }

    @Test func adaptersListsEveryAdapterAndMapping() throws {
        let result = try CommandRunner.ingest(["adapters", "--mappings", RepositoryFiles.mappingsDirectory])
        #expect(result.status == 0)
        for name in ["rax", "noom", "mapping:zales24", "pharmacy-registry"] {
            #expect(result.stdout.contains(name))
        }
        #expect(result.stdout.contains("zales24_export_*.csv"))
        // Columns keep apart for the longest names (medicine_register, reimbursement_list): every summary starts in one column.
        let lines = result.stdout.split(separator: "\n")
        let summaryColumns = Set(lines.map { line -> Int in
            // Past the name, its padding, the kind and its padding.
            var index = line.startIndex
            for _ in 0..<2 {
                index = line[index...].firstIndex(of: " ") ?? line.endIndex
                index = line[index...].firstIndex { $0 != " " } ?? line.endIndex
            }
            return line.distance(from: line.startIndex, to: index)
        })
        #expect(summaryColumns.count == 1, "summaries start in columns \(summaryColumns)")
        #expect(result.stdout.contains("reimbursement_list  Reimbursement list"))
    }

    @Test func errorsThatCannotBeStagedMapToTheirCodes() {
        #expect(ImportCommand.status(for: SnapshotPublisher.IntegrityFailure(findings: "x")) == .integrityFailure)
        #expect(ImportCommand.status(for: POSIXFailure(operation: "write", path: "p", code: ENOSPC)) == .ioError)
        #expect(ImportCommand.status(for: SQLiteError(code: 13, message: "database or disk is full")) == .ioError)
        #expect(ImportCommand.status(for: IngestPipelineError.configuration) == .configuration)
        struct Other: Error {}
        #expect(ImportCommand.status(for: Other()) == .internalError)
    }
}

import IngestPipeline
private enum IngestPipelineError {
    static let configuration = ImportError.configuration("two adapters claim one file")
}
