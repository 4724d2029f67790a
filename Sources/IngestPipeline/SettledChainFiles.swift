import IngestAdapters
import IngestCore
import IngestSnapshot

/// Chain files an earlier night split already, and that cannot bring
/// anything new: `current`'s manifest lists every pharmacy's part of the same
/// bytes, and each part is exported no later than what `current` holds for
/// its pharmacy. Such a file is not split again; its parts enter the plan
/// as candidates with the header the manifest recorded, which the parser
/// reports as skipped (`not_newer`, or `duplicate`) or superseded without
/// reading them, exactly as it would after a split (FEEDS.md: time only
/// moves forward).
///
/// Why: a feeds folder keeps earlier nights' files until they are pruned,
/// and splitting a chain file reads every row. Four earlier nights' files
/// made a night 1.4 times slower, nearly all of it in splitting chain files
/// whose parts were then skipped (issue 44).
///
/// The file's bytes are hashed again tonight (a few percent of a split): a
/// file rewritten under the same name and size is split as new.
struct SettledChainFiles {
    /// The chain files still to split, and the parts of the settled ones.
    var toSplit: [ChainFileSplitter.Chain] = []
    var parts: [StockFeedPlan.Candidate] = []

    init(_ chains: [ChainFileSplitter.Chain], previous: PreviousSnapshot?, current: [String: CurrentStock], currency: String) {
        let lines = Dictionary(grouping: (previous?.manifest?.inputs ?? []).filter {
            $0.kind == FeedKind.stock.rawValue && $0.outcome != FeedOutcome.carriedOver.rawValue
        }, by: \.file)
        for chain in chains {
            guard let recorded = lines[chain.file.name],
                  let parts = Self.recordedParts(of: chain, recorded: recorded, current: current, currency: currency) else {
                toSplit.append(chain)
                continue
            }
            self.parts += parts
        }
    }

    /// The file's parts as candidates, or nil when the file must be split:
    /// other bytes, a line of rows that named no pharmacy, a part without an
    /// export time, or a part newer than `current` holds (it may load).
    private static func recordedParts(of chain: ChainFileSplitter.Chain, recorded: [Manifest.Input], current: [String: CurrentStock],
                              currency: String) -> [StockFeedPlan.Candidate]? {
        guard let sha256 = recorded.first?.sha256, !sha256.isEmpty,
              recorded.allSatisfy({ $0.sha256 == sha256 && $0.size == chain.file.size }) else { return nil }
        var headers: [StockFeedHeader] = []
        for line in recorded {
            guard let id = line.pharmacyId, let text = line.exportedAt, let exportedAt = ExportTimestamp.parseISO8601(text),
                  let held = current[id], exportedAt.epochSeconds <= held.exportedAt.epochSeconds else { return nil }
            headers.append(StockFeedHeader(pharmacyID: id, pharmacyName: nil, exportedAt: exportedAt, format: chain.adapter.name,
                                           currency: currency))
        }
        guard PharmacyFeedParser.digest(chain.file) == sha256 else { return nil }
        return headers.map { StockFeedPlan.Candidate(file: chain.file, adapter: chain.adapter, header: $0, part: nil, sha256: sha256) }
    }
}
