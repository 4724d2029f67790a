import ArgumentParser
import Foundation
import IngestCore
import IngestPipeline
import IngestSettings

/// The `ingest` root. With no subcommand it runs an import, which is what
/// the nightly cron job calls.
@main
struct IngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Import pharmacy stock feeds and reference data into a versioned SQLite snapshot.",
        discussion: ExitStatus.helpText,
        version: importerVersion,
        subcommands: [ImportCommand.self, SnapshotsCommand.self, QuarantineCommand.self, AdaptersCommand.self, CheckCommand.self, GenerateCommand.self, TestDatabaseCommand.self],
        defaultSubcommand: ImportCommand.self
    )

    /// Where an installed `ingest` finds its settings when `--config` names none.
    static let defaultConfigFile = "/etc/ingest/ingest.toml"

    /// The import (the default subcommand) takes its options from
    /// `--config FILE` or /etc/ingest/ingest.toml and from `INGEST_*`
    /// variables, under the command line's own; `snapshots` and `quarantine`
    /// take the `snapshots` folder from them. A bad setting exits 78.
    static func main() {
        let user = Array(CommandLine.arguments.dropFirst())
        do {
            main(try layered(user, environment: ProcessInfo.processInfo.environment, defaultFile: defaultConfigFile))
        } catch {
            FileHandle.standardError.write(Data("ingest: configuration error: \(error)\n".utf8))
            Foundation.exit(ExitStatus.configuration.rawValue)
        }
    }

    static func layered(_ user: [String], environment: [String: String], defaultFile: String?) throws -> [String] {
        let others = configuration.subcommands.map { $0._commandName }.filter { $0 != ImportCommand._commandName }
        if let first = user.first, others.contains(first) || first == "help" || user.contains("--help") || user.contains("-h") || user.contains("--version") {
            guard ["snapshots", "quarantine"].contains(first), user.count >= 2, !user[1].hasPrefix("-") else { return user }
            // Only the folder applies to these; it goes right after the subcommand, before the user's own options.
            let folder = LayeredArguments(usage: "--snapshots <dir>")
            let settings = try folder.arguments([], environment: environment, defaultFile: defaultFile, onlyKnownKeys: true)
            return Array(user.prefix(2)) + settings + user.dropFirst(2)
        }
        let explicit = user.first == ImportCommand._commandName
        let layers = LayeredArguments(usage: helpMessage(for: ImportCommand.self, columns: 10_000))
        return (explicit ? [ImportCommand._commandName] : []) + (try layers.arguments(Array(user.dropFirst(explicit ? 1 : 0)), environment: environment, defaultFile: defaultFile))
    }
}

/// The version a build reports (`--version`) and writes into each manifest's
/// `importer_version`: the release number and the commit it was built from
/// (`BuildInfo`, written by BuildInfoPlugin), so two builds are told apart.
let importerVersion = "\(IngestVersion.current) (commit \(BuildInfo.commit))"
