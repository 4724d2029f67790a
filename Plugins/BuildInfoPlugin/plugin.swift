import Foundation
import PackagePlugin

/// Writes `BuildInfo.swift` into the target before every build: the commit
/// the build was made from (`git describe --always --dirty`, "unknown"
/// outside a git checkout) and its date, so that `--version`, each
/// manifest's `importer_version` and the package's version (one string)
/// tell two builds apart and sort in commit order. The file is rewritten only
/// when the text changes, so an unchanged checkout recompiles nothing.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("BuildInfo.swift")
        let script = #"""
            commit=$(git -C "$1" describe --always --dirty --abbrev=12 --exclude '*' 2>/dev/null || echo unknown)
            date=$(git -C "$1" log -1 --format=%cd --date=format:%Y%m%d%H%M 2>/dev/null || echo 0)
            text="/// Written by BuildInfoPlugin before the build.
            enum BuildInfo { static let commit = \"$commit\"; static let commitDate = \"$date\" }"
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
