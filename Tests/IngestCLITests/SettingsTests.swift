import Foundation
import IngestSettings
import IngestTestSupport
import Testing
@testable import IngestCLI

/// Settings for operators (issue 35): `--config FILE` (TOML, the long option
/// names as keys) and `INGEST_*` variables; flags win over the environment,
/// which wins over the file.
@Suite struct SettingsTests {
    @Test func fileThenEnvironmentThenFlagsAsArguments() throws {
        let temporary = TemporaryDirectory()
        let file = temporary.write("ingest.toml", text: """
            feeds = "/srv/feeds"
            max-stale-days = 3
            dry-run = true
            verbose = false
            max-price-ratio = 2.5
            """)
        let layers = LayeredArguments(usage: IngestCommand.helpMessage(for: ImportCommand.self, columns: 10_000))
        let environment = ["INGEST_MAX_STALE_DAYS": "5", "INGEST_QUIET": "yes", "INGEST_REALDATA": "/elsewhere", "HOME": "/root"]
        #expect(try layers.arguments(["--max-stale-days", "9", "--config", file], environment: environment, defaultFile: nil) == [
            "--dry-run", "--feeds", "/srv/feeds", "--max-price-ratio", "2.5", "--max-stale-days", "3",
            "--max-stale-days", "5", "--quiet",
            "--max-stale-days", "9",
        ])
        // Without --config the default file is read when it exists, INGEST_CONFIG before it.
        #expect(try layers.arguments([], environment: [:], defaultFile: "\(temporary.path)/none.toml") == [])
        #expect(try layers.arguments([], environment: ["INGEST_CONFIG": file], defaultFile: nil).first == "--dry-run")
        #expect { try layers.fromEnvironment(["INGEST_DRY_RUN": "maybe"]) } throws: { "\($0)" == "INGEST_DRY_RUN=maybe: a switch is 1/true/yes or 0/false/no" }
        let wrong = temporary.write("wrong.toml", text: "dry-run = \"yes\"\n")
        #expect { try layers.fromFile(wrong) } throws: { "\($0)" == "\(wrong): 'dry-run' is a switch: true or false" }
    }

    /// The precedence seen in real runs: which snapshots folder a night publishes into.
    @Test func aNightTakesItsFoldersFromTheLayers() throws {
        let temporary = TemporaryDirectory()
        let feeds = RepositoryFiles.feedsDirectory
        let config = temporary.write("ingest.toml", text: "feeds = \"\(feeds)\"\nsnapshots = \"\(temporary.path)/from-file\"\nmappings = \"\(RepositoryFiles.mappingsDirectory)\"\nquiet = true\n")
        #expect(try CommandRunner.ingest(["--config", config]).status == 0)
        #expect(try CommandRunner.ingest(["--config", config], environment: ["INGEST_SNAPSHOTS": "\(temporary.path)/from-env"]).status == 0)
        let flagged = try CommandRunner.ingest(["--config", config, "--snapshots", "\(temporary.path)/from-flag"], environment: ["INGEST_SNAPSHOTS": "\(temporary.path)/from-env"])
        #expect(flagged.status == 0 && flagged.stdout.isEmpty)
        for folder in ["from-file", "from-env", "from-flag"] {
            #expect(FileManager.default.fileExists(atPath: "\(temporary.path)/\(folder)/current"), "\(folder)")
        }
        // snapshots and quarantine take the folder too.
        let list = try CommandRunner.ingest(["snapshots", "list"], environment: ["INGEST_SNAPSHOTS": "\(temporary.path)/from-env"])
        #expect(list.status == 0 && list.stdout.split(separator: "\n").count == 2, "\(list.stdout)")
        // A key no option has: exit 78, naming the file.
        let bad = temporary.write("bad.toml", text: "colour = \"blue\"\n")
        let refused = try CommandRunner.ingest(["--config", bad])
        #expect(refused.status == 78 && refused.stderr.hasPrefix("ingest: configuration error: \(bad): 'colour' is not an option of this command; known: as-of, as-owner, currency,"))
        let serve = try CommandRunner.serve(["--config", bad])
        #expect(serve.status == 78 && serve.stderr.hasPrefix("ingest-serve: configuration error: \(bad): 'colour' is not an option of this command"))
    }
}
