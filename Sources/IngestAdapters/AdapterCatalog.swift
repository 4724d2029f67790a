import IngestCore

/// Every adapter this importer has, and the rule that picks one per file:
/// by content; no claimant is `unrecognised`, two claimants is a
/// configuration error that names both.
public struct AdapterCatalog: Sendable {
    public let stockAdapters: [any StockFeedAdapter]
    public let registry: PharmacyRegistryAdapter

    public init(stockAdapters: [any StockFeedAdapter] = [RAXStockAdapter(), NoomStockAdapter()], registry: PharmacyRegistryAdapter = PharmacyRegistryAdapter()) {
        self.stockAdapters = stockAdapters
        self.registry = registry
    }

    /// The built-in adapters plus one per mapping file in `mappingsDirectory`.
    public static func load(mappingsDirectory: String) throws(MappingError) -> AdapterCatalog {
        let mapped: [any StockFeedAdapter] = try MappingLoader.loadAll(directory: mappingsDirectory).map { mapping in
            switch mapping.layout {
            case .delimited: return MappedCSVStockAdapter(mapping: mapping)
            case .xml: return MappedXMLStockAdapter(mapping: mapping)
            }
        }
        return AdapterCatalog(stockAdapters: [RAXStockAdapter(), NoomStockAdapter()] + mapped)
    }

    public var all: [any FeedAdapter] { stockAdapters + [registry] }

    /// The adapter a file is for.
    public enum Claim: Sendable {
        case stock(any StockFeedAdapter)
        case pharmacyRegistry(PharmacyRegistryAdapter)
        case unrecognised
    }

    public struct AmbiguousFile: Error, Sendable, CustomStringConvertible {
        public let file: String
        public let adapters: [String]
        public var description: String {
            "\(file) is claimed by more than one adapter: \(adapters.joined(separator: ", ")); make their recognition rules exclusive"
        }
    }

    public func claim(_ file: FeedFile) throws(AmbiguousFile) -> Claim {
        var claims: [Claim] = []
        var names: [String] = []
        for adapter in stockAdapters where adapter.recognises(file) {
            claims.append(.stock(adapter))
            names.append(adapter.name)
        }
        if registry.recognises(file) {
            claims.append(.pharmacyRegistry(registry))
            names.append(registry.name)
        }
        if claims.count > 1 { throw AmbiguousFile(file: file.name, adapters: names) }
        return claims.first ?? .unrecognised
    }
}
