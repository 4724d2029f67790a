import IngestAdapters
import IngestCore
import IngestSnapshot

/// The feeds folder sorted by what each file is, before anything is parsed.
/// Files that are skipped or unrecognised already have their report line.
struct FeedClassification {
    var stock: [StockFeedPlan.Candidate] = []
    /// Stock files whose records each name their pharmacy: split before the plan is made.
    var chains: [ChainFileSplitter.Chain] = []
    /// Reference files by kind, in folder order.
    var references: [FeedKind: [FeedFile]] = [:]
    /// The adapter that claimed each reference file, by file name: a
    /// mapping's (`kind = "registry"`) reads its file, not the kind's own CSV.
    var referenceAdapters: [String: any FeedAdapter] = [:]
    var settled: [FeedResult] = []

    /// `referenceKinds`: the kinds the run loads; a file claimed by an
    /// adapter of another kind (a catalogue given by a test or a tool) is
    /// not loaded, and its line says why.
    /// `quarantine`: files set aside by SHA-256 are not read (each file is
    /// hashed for it only when the list is not empty).
    init(_ inventory: FeedInventory, catalog: AdapterCatalog, referenceKinds: Set<FeedKind>, quarantine: Quarantine = Quarantine()) {
        for entry in inventory.entries {
            guard let file = entry.file else {
                var skipped = FeedResult(file: entry.name, size: 0, sha256: "", kind: nil, adapter: nil, outcome: entry.unreadable ? .unreadable : .skipped)
                skipped.message = entry.skipped
                settled.append(skipped)
                continue
            }
            if !quarantine.isEmpty {
                let digest = PharmacyFeedParser.digest(file)
                if let set = quarantine.entry(sha256: digest) {
                    // Named by its claimant and pharmacy where they can be read, so the report says whose data stays.
                    let claimant = try? catalog.claim(file) // ambiguity is for a file that is read; this one is not
                    var result = FeedResult(file: file.name, size: file.size, sha256: digest, kind: claimant?.kind.rawValue,
                                            adapter: claimant?.name, outcome: .quarantined)
                    result.pharmacyID = (claimant as? any StockFeedAdapter).flatMap { try? $0.readHeader(file) }?.pharmacyID
                    result.reason = "quarantined"
                    result.message = "quarantined \(set.addedAt) (\(set.reason)); not read: ingest quarantine remove \(String(digest.prefix(12))) lets it in"
                    settled.append(result)
                    continue
                }
            }
            let claimant: (any FeedAdapter)?
            do {
                claimant = try catalog.claim(file)
            } catch {
                // One bad file never stops the night: no adapter is guessed, the file is not read.
                var ambiguous = FeedResult(file: file.name, size: file.size, sha256: PharmacyFeedParser.digest(file),
                                           kind: nil, adapter: nil, outcome: .rejected)
                ambiguous.reason = FeedSkip.ambiguous
                ambiguous.message = "claimed by more than one adapter (\(error.adapters.joined(separator: ", "))); make their recognition rules exclusive"
                settled.append(ambiguous)
                continue
            }
            switch claimant {
            case let adapter as any ChainFeedAdapter where adapter.pharmacyPerRecord:
                chains.append(.init(file: file, adapter: adapter))
            case let adapter as any StockFeedAdapter:
                // A header that cannot be read is not an error here: the parse rejects the file with the reason.
                stock.append(.init(file: file, adapter: adapter, header: try? adapter.readHeader(file)))
            case let adapter? where referenceKinds.contains(adapter.kind):
                references[adapter.kind, default: []].append(file)
                referenceAdapters[file.name] = adapter
            case let adapter:
                var unrecognised = FeedResult(file: file.name, size: file.size, sha256: PharmacyFeedParser.digest(file),
                                              kind: adapter?.kind.rawValue, adapter: adapter?.name, outcome: .unrecognised)
                unrecognised.message = adapter.map { "claimed by \($0.name), whose kind \($0.kind) this run does not load" }
                    ?? "no adapter recognises this file"
                settled.append(unrecognised)
            }
        }
    }
}
