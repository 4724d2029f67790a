import ArgumentParser
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
        let layers = try LayeredArguments(command: ImportCommand.self)
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

/// Issue 44, item 3: settings everywhere, and errors that name where a bad value came from.
@Suite struct SettingsErrorTests {
    @Test func aBadValueFromTheFileOrTheEnvironmentExits78NamingItAndWritesMetrics() throws {
        let temporary = TemporaryDirectory()
        let metrics = "\(temporary.path)/ingest.prom"
        let config = temporary.write("ingest.toml", text: "feeds = \"\(temporary.path)/feeds\"\nmax-stale-days = \"seven\"\nmetrics-file = \"\(metrics)\"\n")
        let file = try CommandRunner.ingest(["--config", config])
        #expect(file.status == 78)
        #expect(file.stderr == "ingest: configuration error: \(config): max-stale-days = \"seven\": The value 'seven' is invalid for '--max-stale-days <max-stale-days>'\n")
        let written = try PrometheusTextfile(contentsOfFile: metrics)
        #expect(written["ingest_last_run_exit_code"] == 78 && written["ingest_last_run_success"] == 0)
        // Every family, as on a night that ran: no series comes and goes.
        for series in ["ingest_feeds{outcome=\"loaded\"}", "ingest_quality_gate_failed{gate=\"no_stock_feed\"}", "ingest_check_failed{check=\"price_shift\"}",
                       "ingest_carried_over_pharmacies"] {
            #expect(written[series] == 0, "\(series)")
        }

        let good = temporary.write("good.toml", text: "metrics-file = \"\(metrics)\"\n")
        let environment = try CommandRunner.ingest(["--config", good], environment: ["INGEST_KEEP": "-1"])
        #expect(environment.status == 78)
        #expect(environment.stderr == "ingest: configuration error: INGEST_KEEP=-1: --keep must be at least 1\n")
        // The same line on the command line is the parser's usage error (64), and is written too.
        let flag = try CommandRunner.ingest(["--keep", "0", "--metrics-file", metrics])
        #expect(flag.status == 64)
        #expect(try PrometheusTextfile(contentsOfFile: metrics)["ingest_last_run_exit_code"] == 64)
    }

    /// `check` and `adapters` once ignored the settings file: a feed the night loads read as unrecognised (exit 4).
    @Test func checkAndAdaptersTakeTheMappingsFromTheSettings() throws {
        let temporary = TemporaryDirectory()
        let config = temporary.write("ingest.toml", text: "mappings = \"\(RepositoryFiles.mappingsDirectory)\"\nmax-stale-days = 3\n")
        let feed = RepositoryFiles.feed("zales24_export_2013-06-01.csv")
        let checked = try CommandRunner.ingest(["check", feed, "--config", config, "--as-of", "2013-06-02"], in: temporary.path)
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        let unconfigured = try CommandRunner.ingest(["check", feed, "--as-of", "2013-06-02"], in: temporary.path)
        #expect(unconfigured.status == 4, "without the file the mapping is not found from this folder")
        let adapters = try CommandRunner.ingest(["adapters"], in: temporary.path, environment: ["INGEST_CONFIG": config])
        #expect(adapters.status == 0 && adapters.stdout.contains("zales24"), "\(adapters.stdout)")
    }

    @Test func configShowSaysEachValueAndWhereItCameFromAndCheckValidates() throws {
        let temporary = TemporaryDirectory()
        let config = temporary.write("ingest.toml", text: "feeds = \"/srv/feeds\"\nquiet = true\n")
        let shown = try CommandRunner.ingest(["config", "show", "--config", config], environment: ["INGEST_KEEP": "3"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let lines = shown.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "feeds = /srv/feeds".padding(toLength: 40, withPad: " ", startingAt: 0) + "  # \(config)")
        #expect(lines.contains("keep = 3".padding(toLength: 40, withPad: " ", startingAt: 0) + "  # INGEST_KEEP"))
        #expect(lines.contains("quiet = true".padding(toLength: 40, withPad: " ", startingAt: 0) + "  # \(config)"))
        #expect(lines.contains("max-stale-days = 7".padding(toLength: 40, withPad: " ", startingAt: 0) + "  # default"))
        let checked = try CommandRunner.ingest(["config", "check", "--config", config], environment: ["INGEST_KEEP": "3"])
        #expect(checked.status == 0 && checked.stdout == "ok: 3 settings valid for ingest import (from \(config), INGEST_KEEP)\n")
        let bad = try CommandRunner.ingest(["config", "check", "--config", config], environment: ["INGEST_KEEP": "none"])
        #expect(bad.status == 78)
        #expect(bad.stderr == "ingest: configuration error: INGEST_KEEP=none: The value 'none' is invalid for '--keep <keep>'\n")
    }
}

/// Issue 47, item 6: the layers learn a command's options from the parser's
/// own description, not from its help text.
@Suite struct ParserDescriptionTests {
    /// Prose that looks like an option (`--colour <name>` in a discussion) is
    /// no option; a flag and an option are told apart by kind, not by a value name.
    struct Toy: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "toy", discussion: "Older builds took --colour <name>; use --shade.")
        @Option(name: .long, help: "A shade.") var shade = "grey"
        @Option(name: .customLong("max-width"), help: ArgumentHelp("Widest.", valueName: "n")) var width: Int?
        @Flag(name: .long, help: "Say less.") var quiet = false
        @Argument var file: String?
    }

    @Test func optionsFlagsAndDefaultsComeFromTheParser() throws {
        let described = try ParserDescription(of: Toy.self)
        #expect(described.options == [
            .init(name: "shade", takesValue: true, defaultValue: "grey"),
            .init(name: "max-width", takesValue: true, defaultValue: nil),
            .init(name: "quiet", takesValue: false, defaultValue: nil),
        ])
        let layers = try LayeredArguments(command: Toy.self)
        #expect(try layers.fromEnvironment(["INGEST_SHADE": "blue", "INGEST_QUIET": "1", "INGEST_COLOUR": "red", "INGEST_MAX_WIDTH": "-1"])
            == ["--max-width=-1", "--quiet", "--shade", "blue"])
    }

    /// Every option the import's help shows is one the layers know, and no other.
    @Test func theImportsOptionsAreTheHelpTextsOptions() throws {
        let help = IngestCommand.helpMessage(for: ImportCommand.self, columns: 10_000)
        let shown = Set(help.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard let first = words.first(where: { $0.hasPrefix("--") }), line.hasPrefix("  -") else { return nil }
            return String(first.dropFirst(2).split(separator: ",").first ?? "")
        }).subtracting(["help", "version", "config"])
        let layers = try LayeredArguments(command: ImportCommand.self)
        #expect(Set(layers.options.keys) == shown)
        #expect(layers.options["dry-run"]?.takesValue == false && layers.options["feeds"]?.takesValue == true)
    }
}
