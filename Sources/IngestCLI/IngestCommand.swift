import ArgumentParser
import IngestCore
import IngestPipeline

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
}

/// The version a build reports (`--version`) and writes into each manifest's
/// `importer_version`: the release number and the commit it was built from
/// (`BuildInfo`, written by BuildInfoPlugin), so two builds are told apart.
let importerVersion = "\(IngestVersion.current) (commit \(BuildInfo.commit))"
