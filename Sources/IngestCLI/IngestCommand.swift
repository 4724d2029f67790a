import ArgumentParser

/// The `ingest` root. With no subcommand it runs an import, which is what
/// the nightly cron job calls.
@main
struct IngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Import pharmacy stock feeds and reference data into a versioned SQLite snapshot.",
        discussion: ExitStatus.helpText,
        version: "0.1.0",
        subcommands: [ImportCommand.self, SnapshotsCommand.self, AdaptersCommand.self, CheckCommand.self, GenerateCommand.self, TestDatabaseCommand.self],
        defaultSubcommand: ImportCommand.self
    )
}
