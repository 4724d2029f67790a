import IngestAdapters
import IngestCore
import IngestSnapshot

/// The catalogue: every built-in format, once. A new stock format is one
/// line in `stock`; a new reference kind one line in `references`
/// (docs/ADDING_A_FORMAT.md). Mapped formats come from `mappings/`, not from
/// here.
public enum BuiltInFormats {
    /// Stock formats fixed by the pharmacy software (FEEDS.md §1–2).
    public static let stock: [any StockFeedAdapter] = [
        RAXStockAdapter(),
        NoomStockAdapter(),
    ]

    /// Reference kinds, in load order: a kind may use those before it (the
    /// reimbursement list checks its diagnoses against ICD-10).
    static var references: [any ReferenceSet.Type] { [
        PharmacyRegistrySet.self,
        ICD10Set.self,
        ATCSet.self,
        GS1Set.self,
        ReimbursementSet.self,
        MedicineRegisterSet.self,
    ] }

    /// Every built-in adapter, stock formats first.
    public static var adapters: [any FeedAdapter] { stock + references.map { $0.adapter } }

    /// The snapshot tables the reference kinds bring, after the core ones, and the ledger of loaded exports.
    public static var schema: SnapshotSchema { schema(references) }

    static func schema(_ references: [any ReferenceSet.Type]) -> SnapshotSchema {
        SnapshotSchema(adding: references.flatMap { $0.tables } + [LoadedExports.table])
    }

    /// The built-in adapters plus one per mapping file in `mappingsDirectory`.
    public static func catalog(mappingsDirectory: String) throws(MappingError) -> AdapterCatalog {
        try catalog(mappingsDirectory: mappingsDirectory, references: references)
    }

    /// The same with other reference kinds (a test's, beside or instead of the built-in ones).
    static func catalog(mappingsDirectory: String, references: [any ReferenceSet.Type]) throws(MappingError) -> AdapterCatalog {
        AdapterCatalog(stock + AdapterCatalog.mappedAdapters(try MappingLoader.loadAll(directory: mappingsDirectory))
            + references.map { $0.adapter })
    }
}
