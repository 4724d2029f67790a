import Foundation
import IngestTestSupport
import Testing

/// The README shows what `make run` prints over the sample `feeds/`; this
/// holds the page to the program, so that a newcomer's first run looks
/// like the front page. Only the version, the duration and the snapshots
/// folder differ from run to run.
@Suite struct ReadmeOutputTests {
    /// The first fenced block under a heading.
    private func block(under heading: String, in text: String) throws -> String {
        let start = try #require(text.range(of: "\n\(heading)\n"))
        let fence = try #require(text.range(of: "```\n", range: start.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "```\n", range: fence.upperBound..<text.endIndex))
        return String(text[fence.upperBound..<end.lowerBound])
    }

    private func normalised(_ text: String) -> String {
        text.replacing(/\d{8}T\d{6}Z-\d{3}/, with: "VERSION").replacing(/\sin \d+\.\d s$/.anchorsMatchLineEndings(), with: " in N s")
    }

    @Test func whatARunPrintsIsWhatItPrintsToday() throws {
        let readme = try String(contentsOfFile: "\(RepositoryFiles.root)/README.md", encoding: .utf8)
        let shown = try block(under: "## What a run prints", in: readme)
        let temporary = TemporaryDirectory()
        let result = try CommandRunner.ingest(["--feeds", "feeds", "--mappings", "mappings", "--snapshots", "\(temporary.path)/var/snapshots"],
                                              in: RepositoryFiles.root)
        #expect(result.status == 0, "\(result.stderr)")
        let printed = result.stdout.replacingOccurrences(of: "\(temporary.path)/", with: "")
        #expect(normalised(printed) == normalised(shown))
    }
}
