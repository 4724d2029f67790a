import IngestAdapters
import IngestCore

/// The feeds folder sorted by what each file is, before anything is parsed.
/// Files that are skipped or unrecognised already have their report line.
struct FeedClassification {
    var stock: [StockFeedPlan.Candidate] = []
    var registries: [FeedFile] = []
    var reimbursementLists: [FeedFile] = []
    var atc: [FeedFile] = []
    var icd10: [FeedFile] = []
    var gs1: [FeedFile] = []
    var settled: [FeedResult] = []

    init(_ inventory: FeedInventory, catalog: AdapterCatalog) throws {
        for entry in inventory.entries {
            guard let file = entry.file else {
                var skipped = FeedResult(file: entry.name, size: 0, sha256: "", kind: nil, adapter: nil, outcome: .skipped)
                skipped.message = entry.skipped
                settled.append(skipped)
                continue
            }
            let claim: AdapterCatalog.Claim
            do { claim = try catalog.claim(file) } catch { throw ImportError.configuration(error.description) }
            switch claim {
            case .stock(let adapter): stock.append(.init(file: file, adapter: adapter, header: try? adapter.readHeader(file)))
            case .pharmacyRegistry: registries.append(file)
            case .reimbursementList: reimbursementLists.append(file)
            case .atc: atc.append(file)
            case .icd10: icd10.append(file)
            case .gs1: gs1.append(file)
            case .unrecognised:
                var unrecognised = FeedResult(file: file.name, size: file.size, sha256: PharmacyFeedParser.digest(file.path),
                                              kind: nil, adapter: nil, outcome: .unrecognised)
                unrecognised.message = "no adapter recognises this file"
                settled.append(unrecognised)
            }
        }
    }
}
