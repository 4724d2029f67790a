import ArgumentParser
import Foundation
import IngestCore
import IngestPipeline
import IngestSettings
import IngestSnapshot

/// The `ingest` root. With no subcommand it runs an import, which is what
/// the nightly cron job calls.
@main
struct IngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Import pharmacy stock feeds and reference data into a versioned SQLite snapshot.",
        discussion: ExitStatus.helpText,
        version: importerVersion,
        subcommands: [ImportCommand.self, SnapshotsCommand.self, QuarantineCommand.self, AdaptersCommand.self, CheckCommand.self, ConfigCommand.self, FeedsCommand.self,
                      GenerateCommand.self, TestDatabaseCommand.self],
        defaultSubcommand: ImportCommand.self
    )

    /// Where an installed `ingest` finds its settings when `--config` names none.
    static let defaultConfigFile = "/etc/ingest/ingest.toml"

    /// The import (the default subcommand) takes its options from
    /// `--config FILE` or /etc/ingest/ingest.toml and from `INGEST_*`
    /// variables, under the command line's own; `snapshots` and `quarantine`
    /// take the `snapshots` folder from them. A bad setting exits 78.
    static func main() {
        let started = Date()
        let user = Array(CommandLine.arguments.dropFirst())
        let environment = ProcessInfo.processInfo.environment
        let arguments: [String]
        do {
            arguments = try layered(user, environment: environment, defaultFile: defaultConfigFile)
        } catch {
            FileHandle.standardError.write(Data("ingest: configuration error: \(error)\n".utf8))
            writeMetrics(exitCode: ExitStatus.configuration.rawValue, started: started, user: user, environment: environment)
            Foundation.exit(ExitStatus.configuration.rawValue)
        }
        var command: ParsableCommand
        do { command = try parseAsRoot(arguments) } catch {
            // A run refused before it started (64) still says so to the alerting (the import writes its own otherwise).
            writeMetrics(exitCode: exitCode(for: error).rawValue, started: started, user: arguments, environment: [:])
            exit(withError: error)
        }
        do { try command.run() } catch { exit(withError: error) }
    }

    /// An option's value from the command line, else the environment, else
    /// the settings file, read leniently: a layer that cannot be read names
    /// none (the error that stopped the run already said why).
    static func lenientSetting(_ name: String, user: [String], environment: [String: String]) -> String? {
        if let index = user.lastIndex(of: "--\(name)"), index + 1 < user.count { return user[index + 1] }
        if let inline = user.last(where: { $0.hasPrefix("--\(name)=") }) { return String(inline.dropFirst(name.count + 3)) }
        let option = LayeredArguments(options: [.init(name: name, takesValue: true)])
        let settings = (try? option.layers(user, environment: environment, defaultFile: defaultConfigFile, onlyKnownKeys: true).settings) ?? []
        return settings.last.flatMap { setting in
            setting.arguments.count == 2 ? setting.arguments[1] : setting.arguments.first.map { String($0.dropFirst(name.count + 3)) }
        }
    }

    /// The metrics of an import that stopped before it ran (a bad setting,
    /// a bad option): the textfile is written for every exit code, with
    /// every family. Where it goes is read leniently from the same layers:
    /// the setting that failed may be any other.
    static func writeMetrics(exitCode: Int32, started: Date, user: [String], environment: [String: String]) {
        guard exitCode != 0, let (_, command) = target(of: user), command == ImportCommand.self,
              let path = lenientSetting("metrics-file", user: user, environment: environment), path != "-" else { return }
        // The refused line may be this very path: an output in the snapshots folder is never written (it once replaced a published version).
        let snapshots = lenientSetting("snapshots", user: user, environment: environment) ?? "var/snapshots"
        guard OutputFile.refusal(of: path, protecting: snapshots) == nil else { return }
        do { try RunMetrics(startedAt: started, finishedAt: Date(), exitCode: exitCode, report: nil).write(to: path) } catch {
            FileHandle.standardError.write(Data("ingest: the metrics file could not be written to \(path): \(error)\n".utf8))
        }
    }

    static func layered(_ user: [String], environment: [String: String], defaultFile: String?) throws -> [String] {
        if user.first == "help" || user.contains("--help") || user.contains("-h") || user.contains("--version") { return user }
        guard let (depth, command) = target(of: user), command != ConfigCommand.Show.self, command != ConfigCommand.Check.self else { return user }
        let layers = try settingLayers(for: command, Array(user.dropFirst(depth)), environment: environment, defaultFile: defaultFile)
        try validate(command, layers)
        return Array(user.prefix(depth)) + layers.settings.flatMap(\.arguments) + layers.user
    }

    /// Which command `user` runs, and how many of its words name it: none
    /// for the import (the default), one (`check`), two (`snapshots list`).
    /// nil when the words name no runnable command (the parser says so).
    static func target(of user: [String]) -> (depth: Int, command: ParsableCommand.Type)? {
        guard let first = user.first, let command = configuration.subcommands.first(where: { $0._commandName == first }) else {
            return (0, ImportCommand.self)
        }
        let children = command.configuration.subcommands
        guard !children.isEmpty else { return (1, command) }
        guard user.count >= 2, let child = children.first(where: { $0._commandName == user[1] }) else { return nil }
        return (2, child)
    }

    /// The file's and the environment's settings for `command` (the
    /// import's all; another command takes those of its own options and
    /// passes over the rest: the file is shared), and the user's arguments.
    static func settingLayers(for command: ParsableCommand.Type, _ user: [String], environment: [String: String],
                              defaultFile: String?) throws -> (settings: [LayeredArguments.Setting], user: [String]) {
        let options: LayeredArguments
        do { options = try LayeredArguments(command: command) } catch {
            throw LayeredArguments.Failure(message: "\(error)")
        }
        return try options.layers(user, environment: environment, defaultFile: defaultFile, onlyKnownKeys: command != ImportCommand.self)
    }

    /// A value from the file or the environment that the command refuses
    /// is a configuration error (78) naming where it came from, the key and
    /// what is expected, not the parser's usage error (64) that names
    /// neither. Each setting is judged alone only when the whole line fails,
    /// so options that go together (`--detailed-exitcode` with `--dry-run`) pass.
    static func validate(_ command: ParsableCommand.Type, _ layers: (settings: [LayeredArguments.Setting], user: [String])) throws {
        guard (try? command.parse(layers.settings.flatMap(\.arguments) + layers.user)) == nil else { return } // it parses: nothing to say
        for setting in layers.settings where !setting.arguments.isEmpty {
            do { _ = try command.parse(setting.arguments) } catch {
                throw LayeredArguments.Failure(message: "\(setting.source): \(command.message(for: error))")
            }
        }
    }
}

/// The version a build reports (`--version`) and writes into each manifest's
/// `importer_version`: the release number and the commit it was built from
/// (`BuildInfo`, written by BuildInfoPlugin), so two builds are told apart.
let importerVersion = IngestVersion.build(commit: BuildInfo.commit, date: BuildInfo.commitDate)
