import ArgumentParser
import IngestAdapters
import IngestCore
import IngestPipeline

/// `ingest adapters`: every adapter and mapping, and what it recognises.
struct AdaptersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adapters",
        abstract: "List every adapter and mapping with what it recognises.",
        discussion: ExitStatus.helpText(exitCodes)
    )
    static let exitCodes: [(ExitStatus, String)] = [
        (.success, "listed"),
        (.configuration, "a mapping is invalid (the file and key are named)"),
    ] + ExitStatus.always

    @OptionGroup var mappingsOptions: MappingsOptions

    func run() throws {
        let catalog = try mappingsOptions.loadCatalog()
        // Columns as wide as their longest entry: a long mapping name or kind never runs into the next column.
        let width = catalog.adapters.map(\.name.count).max() ?? 0
        let kindWidth = catalog.adapters.map(\.kind.rawValue.count).max() ?? 0
        for adapter in catalog.adapters {
            print(TextColumns.left(adapter.name, width) + "  " + TextColumns.left(adapter.kind.rawValue, kindWidth) + "  " + adapter.summary)
        }
    }
}
