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
    }

    public let options: [String: Option]
    public let environmentPrefix: String

    /// `usage` is the command's help text: every `--name` in it is an option,
    /// one followed by `<…>` takes a value.
    public init(usage: String, environmentPrefix: String = "INGEST_") {
        var options: [String: Option] = [:]
        let pattern = try! NSRegularExpression(pattern: "--([a-z0-9][a-z0-9-]*)( <[^>]+>)?") // a fixed pattern
        let range = NSRange(usage.startIndex..., in: usage)
        for match in pattern.matches(in: usage, range: range) {
            guard let nameRange = Range(match.range(at: 1), in: usage) else { continue }
            let name = String(usage[nameRange])
            let takesValue = match.range(at: 2).location != NSNotFound
            if options[name] == nil || takesValue { options[name] = Option(name: name, takesValue: takesValue) }
        }
        for name in ["help", "version", "config", "experimental-dump-help", "generate-completion-script"] { options[name] = nil }
        self.options = options
        self.environmentPrefix = environmentPrefix
    }

    /// The arguments the file at `path` gives (nil: none). Its keys must be options of the command.
    public func fromFile(_ path: String, onlyKnownKeys: Bool = false) throws -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Failure(message: "the configuration file \(path) cannot be read")
        }
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch {
            throw Failure(message: "\(path) is not valid TOML: \(error)")
        }
        var arguments: [String] = []
        for key in table.keys.sorted() {
            guard let option = options[key], let value = table[key] else {
                if onlyKnownKeys { continue }
                throw Failure(message: "\(path): '\(key)' is not an option of this command; known: \(options.keys.sorted().joined(separator: ", "))")
            }
            if let flag = value.bool {
                guard !option.takesValue else { throw Failure(message: "\(path): '\(key)' takes a value, not \(flag)") }
                if flag { arguments.append("--\(key)") }
                continue
            }
            guard option.takesValue else { throw Failure(message: "\(path): '\(key)' is a switch: true or false") }
            if let text = value.string {
                arguments += ["--\(key)", text]
            } else if let number = value.int {
                arguments += ["--\(key)", String(number)]
            } else if let number = value.double {
                arguments += ["--\(key)", String(number)]
            } else {
                throw Failure(message: "\(path): '\(key)' must be a string, a number or true/false")
            }
        }
        return arguments
    }

    /// The arguments `environment` gives: `INGEST_MAX_STALE_DAYS=7` is
    /// `--max-stale-days 7`, `INGEST_DRY_RUN=1` (or true, yes) `--dry-run`.
    /// Variables that name no option are left alone (the tests' own, say).
    public func fromEnvironment(_ environment: [String: String]) throws -> [String] {
        var arguments: [String] = []
        for (name, option) in options.sorted(by: { $0.key < $1.key }) {
            let variable = environmentPrefix + name.uppercased().replacingOccurrences(of: "-", with: "_")
            guard let value = environment[variable] else { continue }
            if option.takesValue {
                arguments += ["--\(name)", value]
            } else {
                switch value.lowercased() {
                case "1", "true", "yes": arguments.append("--\(name)")
                case "0", "false", "no", "": break
                default: throw Failure(message: "\(variable)=\(value): a switch is 1/true/yes or 0/false/no")
                }
            }
        }
        return arguments
    }

    /// The layered arguments: `--config FILE` (taken out of `userArguments`)
    /// or `defaultFile` when it exists, then the environment, then the user's.
    /// `onlyKnownKeys`: the file's other keys are for another command and are passed over.
    public func arguments(_ userArguments: [String], environment: [String: String], defaultFile: String?,
                          onlyKnownKeys: Bool = false) throws -> [String] {
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
        return try (file.map { try fromFile($0, onlyKnownKeys: onlyKnownKeys) } ?? []) + fromEnvironment(environment) + user
    }
}
