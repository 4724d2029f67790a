import Foundation
import IngestCore
import IngestPipeline
import IngestSnapshot
import IngestTestSupport
import Testing

/// `--version` and the manifest's `importer_version` name the build: its
/// release number and the commit it was built from, dirty or not.
@Suite struct VersionTests {
    /// What BuildInfoPlugin asks git, for the checkout the tests run in.
    private func commit() throws -> String {
        let result = try CommandRunner.program("git", ["-C", RepositoryFiles.root, "describe", "--always", "--dirty", "--abbrev=12", "--exclude", "*"])
        return result.status == 0 ? result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : "unknown"
    }

    @Test func versionAndManifestNameTheCommit() throws {
        let date = try CommandRunner.program("git", ["-C", RepositoryFiles.root, "log", "-1", "--format=%cd", "--date=format:%Y%m%d%H%M"])
        let expected = IngestVersion.build(commit: try commit(), date: date.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(expected.hasPrefix("\(IngestVersion.current)+git2") && !expected.hasSuffix("."))
        let version = try CommandRunner.ingest(["--version"])
        #expect(version.status == 0 && version.stdout == expected + "\n" && version.stderr.isEmpty)
        let serve = try CommandRunner.serve(["--version"])
        #expect(serve.status == 0 && serve.stdout == expected + "\n" && serve.stderr.isEmpty)

        let temporary = TemporaryDirectory()
        var feed = RAXFeedBuilder(pharmacyID: "4000", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 1))
        feed.item("MM1")
        temporary.write("feeds/rax_1.txt", bytes: feed.bytes)
        let run = try CommandRunner.ingest(["--feeds", "\(temporary.path)/feeds", "--snapshots", "\(temporary.path)/s"])
        #expect(run.status == 0)
        let directory = SnapshotDirectory(path: "\(temporary.path)/s")
        let manifest = try directory.readManifest(try #require(directory.currentVersion()))
        #expect(manifest.importerVersion == expected)
    }
}
