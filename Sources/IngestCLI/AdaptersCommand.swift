import ArgumentParser
import IngestAdapters
import IngestPipeline

/// `ingest adapters`: every adapter and mapping, and what it recognises.
struct AdaptersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adapters",
        abstract: "List every adapter and mapping with what it recognises.",
        discussion: ExitStatus.helpText
    )

    @Option(name: .long, help: "Folder of mapping and rule files.")
    var mappings = "mappings"

    func run() throws {
        let catalog: AdapterCatalog
        do { catalog = try AdapterCatalog.load(mappingsDirectory: mappings) } catch {
            printError("ingest: configuration error: \(error)")
            throw ExitStatus.configuration.exitCode
        }
        let width = catalog.all.map(\.name.count).max() ?? 0
        for adapter in catalog.all {
            print(adapter.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + adapter.kind.rawValue
                .padding(toLength: 18, withPad: " ", startingAt: 0) + adapter.summary)
        }
    }
}
