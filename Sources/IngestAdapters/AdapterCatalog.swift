import IngestCore

/// Every adapter this importer has, and the rule that picks one per file:
/// by content; no claimant is `unrecognised`, two claimants is a
/// configuration error that names both.
public struct AdapterCatalog: Sendable {
    public let stockAdapters: [any StockFeedAdapter]
    public let registry = PharmacyRegistryAdapter()
    public let reimbursementList = ReimbursementListAdapter()
    public let atc = ATCAdapter()
    public let icd10 = ICD10Adapter()
    public let gs1 = GS1DatasheetAdapter()
    public let medicineRegister = MedicineRegisterAdapter()

    public init(stockAdapters: [any StockFeedAdapter] = [RAXStockAdapter(), NoomStockAdapter()]) {
        self.stockAdapters = stockAdapters
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

    public var all: [any FeedAdapter] { stockAdapters + [registry, reimbursementList, atc, icd10, gs1, medicineRegister] }

    /// The adapter a file is for.
    public enum Claim: Sendable {
        case stock(any StockFeedAdapter)
        case pharmacyRegistry(PharmacyRegistryAdapter)
        case reimbursementList(ReimbursementListAdapter)
        case atc(ATCAdapter)
        case icd10(ICD10Adapter)
        case gs1(GS1DatasheetAdapter)
        case medicineRegister(MedicineRegisterAdapter)
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
        var claims: [(String, Claim)] = stockAdapters.filter { $0.recognises(file) }.map { ($0.name, .stock($0)) }
        if registry.recognises(file) { claims.append((registry.name, .pharmacyRegistry(registry))) }
        if reimbursementList.recognises(file) { claims.append((reimbursementList.name, .reimbursementList(reimbursementList))) }
        if atc.recognises(file) { claims.append((atc.name, .atc(atc))) }
        if icd10.recognises(file) { claims.append((icd10.name, .icd10(icd10))) }
        if gs1.recognises(file) { claims.append((gs1.name, .gs1(gs1))) }
        if medicineRegister.recognises(file) { claims.append((medicineRegister.name, .medicineRegister(medicineRegister))) }
        if claims.count > 1 { throw AmbiguousFile(file: file.name, adapters: claims.map(\.0)) }
        return claims.first?.1 ?? .unrecognised
    }
}
