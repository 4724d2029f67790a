import ArgumentParser
import Foundation
import TOMLKit

/// Settings from a TOML file and `INGEST_*` environment variables, turned
/// into command-line arguments placed before the user's own (issue 35): the
/// parser keeps the last value of an option, so flags win over the
/// environment, which wins over the file. Keys are the long option names
/// (`feeds`, `max-stale-days`, `dry-run = true`); `MAX_STALE_DAYS` in the
/// environment is `--max-stale-days`. A key the command does not have is the
/// parser's own error ("Unknown option"), named with the file it came from.
///
/// Why not apple/swift-configuration: it has no TOML provider (the file is
/// TOML, like the mappings), and its job here would end in producing these
/// same arguments for swift-argument-parser, which owns defaults, types and
/// validation. Layering by argument order keeps one source of truth.
public struct LayeredArguments {
    /// An option of the command: its long name and whether it takes a value.
    public struct Option: Hashable, Sendable {
        public var name: String
        public var takesValue: Bool
        public init(name: String, takesValue: Bool) {
            self.name = name
            self.takesValue = takesValue
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }

    public let options: [String: Option]
    public let environmentPrefix: String

    /// The layers for `command`'s options, as the argument parser describes them.
    public init(command: ParsableCommand.Type, environmentPrefix: String = "INGEST_") throws {
        let described = try ParserDescription(of: command)
        self.init(options: described.options.map { Option(name: $0.name, takesValue: $0.takesValue) }, environmentPrefix: environmentPrefix)
    }

    /// `--config` is the layers' own: a file that named another file would be a loop.
    public init(options: [Option], environmentPrefix: String = "INGEST_") {
        var byName: [String: Option] = [:]
        for option in options where option.name != "config" { byName[option.name] = option }
        self.options = byName
        self.environmentPrefix = environmentPrefix
    }

    /// One setting from a file or the environment: where it came from, for
    /// a person ("FILE: key = value", "INGEST_X=value"), its option's name
    /// and the arguments it stands for.
    public struct Setting: Sendable, Equatable {
        public var source: String
        public var option: String
        public var arguments: [String]
        /// The file, or the variable, alone: what `config show` says a value came from.
        public var origin: String
    }

    /// The arguments the file at `path` gives (nil: none). Its keys must be options of the command.
    public func fromFile(_ path: String, onlyKnownKeys: Bool = false) throws -> [String] {
        try settings(fromFile: path, onlyKnownKeys: onlyKnownKeys).flatMap(\.arguments)
    }

    /// The file's settings, key by key, in key order.
    public func settings(fromFile path: String, onlyKnownKeys: Bool = false) throws -> [Setting] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Failure(message: "the configuration file \(path) cannot be read")
        }
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch {
            throw Failure(message: "\(path) is not valid TOML: \(error)")
        }
        var settings: [Setting] = []
        for key in table.keys.sorted() {
            guard let option = options[key], let value = table[key] else {
                if onlyKnownKeys { continue }
                throw Failure(message: "\(path): '\(key)' is not an option of this command; known: \(options.keys.sorted().joined(separator: ", "))")
            }
            func setting(_ arguments: [String], _ shown: String) -> Setting {
                Setting(source: "\(path): \(key) = \(shown)", option: key, arguments: arguments, origin: path)
            }
            if let flag = value.bool {
                guard !option.takesValue else { throw Failure(message: "\(path): '\(key)' takes a value, not \(flag)") }
                settings.append(setting(flag ? ["--\(key)"] : [], "\(flag)"))
                continue
            }
            guard option.takesValue else { throw Failure(message: "\(path): '\(key)' is a switch: true or false") }
            if let text = value.string {
                settings.append(setting(Self.option(key, text), "\"" + text.replacingOccurrences(of: "\"", with: "\\\"") + "\""))
            } else if let number = value.int {
                settings.append(setting(Self.option(key, String(number)), String(number)))
            } else if let number = value.double {
                settings.append(setting(Self.option(key, String(number)), String(number)))
            } else {
                throw Failure(message: "\(path): '\(key)' must be a string, a number or true/false")
            }
        }
        return settings
    }

    /// `--name value`, or `--name=value` for a value that starts with a
    /// dash: the parser would take `-1` for an option and say a value is missing.
    static func option(_ name: String, _ value: String) -> [String] {
        value.hasPrefix("-") ? ["--\(name)=\(value)"] : ["--\(name)", value]
    }

    /// The arguments `environment` gives: `INGEST_MAX_STALE_DAYS=7` is
    /// `--max-stale-days 7`, `INGEST_DRY_RUN=1` (or true, yes) `--dry-run`.
    /// Variables that name no option are left alone (the tests' own, say).
    public func fromEnvironment(_ environment: [String: String]) throws -> [String] {
        try settings(fromEnvironment: environment).flatMap(\.arguments)
    }

    /// The environment's settings, variable by variable, in option order.
    public func settings(fromEnvironment environment: [String: String]) throws -> [Setting] {
        var settings: [Setting] = []
        for (name, option) in options.sorted(by: { $0.key < $1.key }) {
            let variable = environmentPrefix + name.uppercased().replacingOccurrences(of: "-", with: "_")
            guard let value = environment[variable] else { continue }
            let arguments: [String]
            if option.takesValue {
                arguments = Self.option(name, value)
            } else {
                switch value.lowercased() {
                case "1", "true", "yes": arguments = ["--\(name)"]
                case "0", "false", "no", "": arguments = []
                default: throw Failure(message: "\(variable)=\(value): a switch is 1/true/yes or 0/false/no")
                }
            }
            settings.append(Setting(source: "\(variable)=\(value)", option: name, arguments: arguments, origin: variable))
        }
        return settings
    }

    /// The layered arguments: `--config FILE` (taken out of `userArguments`)
    /// or `defaultFile` when it exists, then the environment, then the user's.
    /// `onlyKnownKeys`: the file's other keys are for another command and are passed over.
    public func arguments(_ userArguments: [String], environment: [String: String], defaultFile: String?,
                          onlyKnownKeys: Bool = false) throws -> [String] {
        let layers = try self.layers(userArguments, environment: environment, defaultFile: defaultFile, onlyKnownKeys: onlyKnownKeys)
        return layers.settings.flatMap(\.arguments) + layers.user
    }

    /// The layers apart: the file's and the environment's settings, in the
    /// order they apply, and the user's own arguments without `--config`.
    public func layers(_ userArguments: [String], environment: [String: String], defaultFile: String?,
                       onlyKnownKeys: Bool = false) throws -> (settings: [Setting], user: [String]) {
        var user = userArguments
        var file = environment[environmentPrefix + "CONFIG"] ?? defaultFile.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        if let index = user.firstIndex(where: { $0 == "--config" || $0.hasPrefix("--config=") }) {
            if user[index] == "--config" {
                guard index + 1 < user.count else { throw Failure(message: "--config needs a file") }
                file = user[index + 1]
                user.removeSubrange(index...(index + 1))
            } else {
                file = String(user[index].dropFirst("--config=".count))
                user.remove(at: index)
            }
            guard FileManager.default.fileExists(atPath: file!) else { throw Failure(message: "the configuration file \(file!) does not exist") }
        }
        return (try (file.map { try settings(fromFile: $0, onlyKnownKeys: onlyKnownKeys) } ?? []) + settings(fromEnvironment: environment), user)
    }
}
