import Foundation
import IngestTestSupport
import Testing

/// The README shows what `make run` prints over the sample `feeds/`; this
/// holds the page to the program, so that a newcomer's first run looks
/// like the front page. Only the version, the duration and the snapshots
/// folder differ from run to run.
@Suite struct ReadmeOutputTests {
    /// The fenced blocks under a heading, up to the next heading.
    private func blocks(under heading: String, in text: String) throws -> [String] {
        let start = try #require(text.range(of: "\n\(heading)\n"))
        let section = text[start.upperBound...]
        let body = section.range(of: "\n## ").map { section[..<$0.lowerBound] } ?? section
        return body.components(separatedBy: "```\n").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    private func normalised(_ text: String) -> String {
        text.replacing(/\d{8}T\d{6}Z-\d{3}/, with: "VERSION").replacing(/\sin \d+\.\d s$/.anchorsMatchLineEndings(), with: " in N s")
    }

    @Test func whatARunPrintsIsWhatItPrintsToday() throws {
        let readme = try String(contentsOfFile: "\(RepositoryFiles.root)/README.md", encoding: .utf8)
        let shown = try blocks(under: "## What a run prints", in: readme)
        try #require(shown.count == 2)
        let temporary = TemporaryDirectory()
        let result = try CommandRunner.ingest(["--feeds", "feeds", "--mappings", "mappings", "--snapshots", "\(temporary.path)/var/snapshots"],
                                              in: RepositoryFiles.root)
        #expect(result.status == 0, "\(result.stderr)")
        let printed = result.stdout.replacingOccurrences(of: "\(temporary.path)/", with: "")
        #expect(normalised(printed) == normalised(shown[0]))
        // The second block is the feeds table that --verbose adds to the same run.
        let verbose = try CommandRunner.ingest(["--feeds", "feeds", "--mappings", "mappings", "--snapshots", "\(temporary.path)/again", "--verbose"],
                                               in: RepositoryFiles.root)
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(verbose.stdout.contains("\n" + shown[1]))
    }
}
