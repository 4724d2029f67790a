import ArgumentParser
import Foundation
import IngestSettings

/// `ingest config show|check`: the nightly run's settings as the layers
/// (`--config` or /etc/ingest/ingest.toml, `INGEST_*`) make them, without
/// running a night. A bad value exits 78 naming the file or variable.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show or check the import's settings from the settings file and INGEST_* variables.",
        discussion: "Each subcommand lists its own exit codes in its --help.",
        subcommands: [Show.self, Check.self])

    static let exitCodes: [(ExitStatus, String)] = [
        (.success, "the settings are valid"),
        (.configuration, "a setting is invalid: the message names the file or variable, the key and what is expected"),
    ] + ExitStatus.always

    static func subcommand(_ abstract: String) -> CommandConfiguration {
        CommandConfiguration(abstract: abstract, discussion: ExitStatus.helpText(exitCodes))
    }

    struct Show: ParsableCommand {
        static let configuration = ConfigCommand.subcommand(
            "Print every option of the import with its effective value and where it came from (a file, a variable, or the default).")
        @OptionGroup var file: SettingsFile

        func run() throws {
            let layers = try ConfigCommand.layers(file.config)
            for option in try ParserDescription(of: ImportCommand.self).options {
                let setting = layers.last { $0.option == option.name }
                let value: String
                if let setting {
                    value = option.takesValue ? (setting.arguments.last ?? "") : String(!setting.arguments.isEmpty)
                } else {
                    value = option.takesValue ? (option.defaultValue ?? "(none)") : "false"
                }
                print("\(option.name) = \(value)".padding(toLength: max(40, option.name.count + value.count + 4), withPad: " ", startingAt: 0)
                    + "  # \(setting?.origin ?? "default")")
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = ConfigCommand.subcommand("Check the settings file and INGEST_* variables against the import's options, without running.")
        @OptionGroup var file: SettingsFile

        func run() throws {
            let layers = try ConfigCommand.layers(file.config)
            let origins = Array(Set(layers.map(\.origin))).sorted()
            print("ok: \(layers.count) setting\(layers.count == 1 ? "" : "s") valid for ingest import"
                + (origins.isEmpty ? " (no settings file, no INGEST_ variable)" : " (from \(origins.joined(separator: ", ")))"))
        }
    }

    /// `--config`, as the import takes it.
    struct SettingsFile: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp("The settings file (default: INGEST_CONFIG, else /etc/ingest/ingest.toml when it exists).", valueName: "file"))
        var config: String?
    }

    /// The import's settings from the layers, each value judged as the night judges it; 78 on a bad one.
    static func layers(_ config: String?) throws -> [LayeredArguments.Setting] {
        do {
            let layers = try IngestCommand.settingLayers(for: ImportCommand.self, config.map { ["--config", $0] } ?? [],
                                                         environment: ProcessInfo.processInfo.environment, defaultFile: IngestCommand.defaultConfigFile)
            try IngestCommand.validate(ImportCommand.self, layers)
            return layers.settings
        } catch let failure as LayeredArguments.Failure {
            printError("ingest: configuration error: \(failure)")
            throw ExitStatus.configuration.exitCode
        }
    }
}
