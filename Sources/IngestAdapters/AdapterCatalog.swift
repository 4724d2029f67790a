import IngestCore

/// The adapters of a run, and the rule that picks one per file: by content;
/// no claimant is unrecognised (nil), two claimants is a configuration error
/// that names both. Which adapters exist is not decided here: the pipeline's
/// `BuiltInFormats` lists the built-in ones once, mapping files add theirs,
/// and a test may add its own.
public struct AdapterCatalog: Sendable {
    public let adapters: [any FeedAdapter]

    public init(_ adapters: [any FeedAdapter]) {
        self.adapters = adapters
    }

    /// The stock adapters of the catalogue, in its order.
    public var stockAdapters: [any StockFeedAdapter] { adapters.compactMap { $0 as? any StockFeedAdapter } }

    public struct AmbiguousFile: Error, Sendable, CustomStringConvertible {
        public let file: String
        public let adapters: [String]
        public var description: String {
            "\(file) is claimed by more than one adapter: \(adapters.joined(separator: ", ")); make their recognition rules exclusive"
        }
    }

    /// The adapter `file` is for; nil when none recognises it.
    public func claim(_ file: FeedFile) throws(AmbiguousFile) -> (any FeedAdapter)? {
        let claimants = adapters.filter { $0.recognises(file) }
        if claimants.count > 1 { throw AmbiguousFile(file: file.name, adapters: claimants.map(\.name)) }
        return claimants.first
    }

    /// One adapter per mapping file (`mappings/*.mapping.toml`): stock by
    /// its layout, or a registry or register (`kind`).
    public static func mappedAdapters(_ mappings: [StockFeedMapping]) -> [any FeedAdapter] {
        mappings.map { mapping -> any FeedAdapter in
            switch mapping.kind {
            case .registry: return MappedRegistryAdapter(mapping: mapping)
            case .register: return MappedRegisterAdapter(mapping: mapping)
            case .stock: break
            }
            return MappedStockReader(mapping).adapter
        }
    }
}
