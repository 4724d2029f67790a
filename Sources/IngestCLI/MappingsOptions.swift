import ArgumentParser
import IngestAdapters
import IngestPipeline

/// `--mappings`, shared by every command that needs the adapter catalog.
struct MappingsOptions: ParsableArguments {
    @Option(name: .long, help: "Folder of mapping and rule files.")
    var mappings = "mappings"

    /// The catalog, or exit 78 with the mapping file and key at fault.
    func loadCatalog() throws -> AdapterCatalog {
        do { return try BuiltInFormats.catalog(mappingsDirectory: mappings) } catch {
            printError("ingest: configuration error: \(error)")
            throw ExitStatus.configuration.exitCode
        }
    }
}
