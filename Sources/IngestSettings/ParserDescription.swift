import ArgumentParser
import Foundation

/// A command's options as swift-argument-parser itself describes them: its
/// tool-info JSON (what `--experimental-dump-help` prints, the format its
/// man-page and DocC plugins read), obtained in-process. The settings layers
/// learned options from the help text once; prose that looked like an option
/// would have been learned as one, and a value name was the only sign that an
/// option takes a value. Here the parser says which arguments are options,
/// which are flags and what each defaults to.
public struct ParserDescription: Sendable {
    /// One long option: its name without dashes, whether it takes a value,
    /// and the default the parser shows (nil: none).
    public struct Option: Sendable, Equatable {
        public var name: String
        public var takesValue: Bool
        public var defaultValue: String?

        public init(name: String, takesValue: Bool, defaultValue: String? = nil) {
            self.name = name
            self.takesValue = takesValue
            self.defaultValue = defaultValue
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The command's long options in declaration order, without the parser's
    /// own (`--help`, `--version`, `--experimental-dump-help`,
    /// `--generate-completion-script`).
    public let options: [Option]

    static let parsersOwn: Set<String> = ["help", "version", "experimental-dump-help", "generate-completion-script"]

    /// The subset of the tool-info format (`ArgumentParserToolInfo.ToolInfoV0`,
    /// not a product of the package, so decoded here) the layers need.
    private struct ToolInfo: Decodable {
        struct Command: Decodable { var arguments: [Argument]? }
        struct Argument: Decodable {
            struct Name: Decodable { var kind: String; var name: String }
            var kind: String
            var names: [Name]?
            var defaultValue: String?
        }
        var command: Command
    }

    public init(of command: ParsableCommand.Type) throws {
        try self.init(toolInfo: Data(Self.toolInfo(of: command).utf8))
    }

    /// From tool-info JSON, as `--experimental-dump-help` prints it.
    public init(toolInfo: Data) throws {
        let info: ToolInfo
        do { info = try JSONDecoder().decode(ToolInfo.self, from: toolInfo) } catch {
            throw Failure(description: "the argument parser's description of the command cannot be read: \(error)")
        }
        var options: [Option] = []
        for argument in info.command.arguments ?? [] where argument.kind != "positional" {
            for name in argument.names ?? [] where name.kind == "long" && !Self.parsersOwn.contains(name.name) {
                options.append(Option(name: name.name, takesValue: argument.kind == "option", defaultValue: argument.defaultValue))
            }
        }
        self.options = options
    }

    /// The parser answers a request for its description with an error whose
    /// message is the JSON (as it answers `--help` with the help text); any
    /// other outcome means this version of the parser no longer does.
    static func toolInfo(of command: ParsableCommand.Type) throws -> String {
        do {
            _ = try command.parseAsRoot(["--experimental-dump-help"])
        } catch {
            let message = command.message(for: error)
            if message.hasPrefix("{") { return message }
            throw Failure(description: "the argument parser did not describe \(command._commandName): \(message)")
        }
        throw Failure(description: "the argument parser ran \(command._commandName) instead of describing it")
    }
}
