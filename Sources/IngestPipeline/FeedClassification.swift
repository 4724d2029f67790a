import IngestAdapters
import IngestCore

/// The feeds folder sorted by what each file is, before anything is parsed.
/// Files that are skipped or unrecognised already have their report line.
struct FeedClassification {
    var stock: [StockFeedPlan.Candidate] = []
    /// Stock files whose records each name their pharmacy: split before the plan is made.
    var chains: [ChainFileSplitter.Chain] = []
    var registries: [FeedFile] = []
    var reimbursementLists: [FeedFile] = []
    var atc: [FeedFile] = []
    var icd10: [FeedFile] = []
    var gs1: [FeedFile] = []
    var medicineRegisters: [FeedFile] = []
    var settled: [FeedResult] = []

    init(_ inventory: FeedInventory, catalog: AdapterCatalog) {
        for entry in inventory.entries {
            guard let file = entry.file else {
                var skipped = FeedResult(file: entry.name, size: 0, sha256: "", kind: nil, adapter: nil, outcome: .skipped)
                skipped.message = entry.skipped
                settled.append(skipped)
                continue
            }
            let claim: AdapterCatalog.Claim
            do {
                claim = try catalog.claim(file)
            } catch {
                // One bad file never stops the night: no adapter is guessed, the file is not read.
                var ambiguous = FeedResult(file: file.name, size: file.size, sha256: PharmacyFeedParser.digest(file.path),
                                           kind: nil, adapter: nil, outcome: .rejected)
                ambiguous.reason = FeedSkip.ambiguous
                ambiguous.message = "claimed by more than one adapter (\(error.adapters.joined(separator: ", "))); make their recognition rules exclusive"
                settled.append(ambiguous)
                continue
            }
            switch claim {
            case .stock(let adapter as any ChainFeedAdapter) where adapter.pharmacyPerRecord:
                chains.append(.init(file: file, adapter: adapter))
            case .stock(let adapter):
                // A header that cannot be read is not an error here: the parse rejects the file with the reason.
                stock.append(.init(file: file, adapter: adapter, header: try? adapter.readHeader(file)))
            case .pharmacyRegistry: registries.append(file)
            case .reimbursementList: reimbursementLists.append(file)
            case .atc: atc.append(file)
            case .icd10: icd10.append(file)
            case .gs1: gs1.append(file)
            case .medicineRegister: medicineRegisters.append(file)
            case .unrecognised:
                var unrecognised = FeedResult(file: file.name, size: file.size, sha256: PharmacyFeedParser.digest(file.path),
                                              kind: nil, adapter: nil, outcome: .unrecognised)
                unrecognised.message = "no adapter recognises this file"
                settled.append(unrecognised)
            }
        }
    }
}
