import Foundation
import PackagePlugin

/// Writes `BuildInfo.swift` into the target before every build: the commit
/// the build was made from (`git describe --always --dirty`, "unknown"
/// outside a git checkout), so that `--version` and each manifest's
/// `importer_version` tell two builds apart. The file is rewritten only
/// when the text changes, so an unchanged checkout recompiles nothing.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("BuildInfo.swift")
        let script = #"""
            commit=$(git -C "$1" describe --always --dirty --abbrev=12 --exclude '*' 2>/dev/null || echo unknown)
            text="/// Written by BuildInfoPlugin before the build.
            enum BuildInfo { static let commit = \"$commit\" }"
            [ "$(cat "$2" 2>/dev/null)" = "$text" ] || printf '%s\n' "$text" > "$2"
            """#
        return [
            .prebuildCommand(
                displayName: "Build info: the commit of \(context.package.directoryURL.lastPathComponent)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", context.package.directoryURL.path, output.path],
                outputFilesDirectory: context.pluginWorkDirectoryURL
            ),
        ]
    }
}
