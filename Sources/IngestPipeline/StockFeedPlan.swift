import IngestAdapters
import IngestCore

/// Which stock feeds are parsed tonight and in what order.
///
/// Feeds are grouped by the pharmacy their header names (a chain file's
/// parts each under their own pharmacy); within a pharmacy the newest
/// export (by its own timestamp, not the file's) is tried first, and an
/// older one only if every newer one is rejected. Pharmacies are taken in id
/// byte order, so offers reach the writer in primary-key order.
struct StockFeedPlan {
    struct Candidate: Sendable {
        var file: FeedFile
        var adapter: any StockFeedAdapter
        var header: StockFeedHeader?
        /// Set for one pharmacy's share of a chain file: parsed already, replayed from its spill.
        var part: ChainPart?
        /// Known when the file was read before the parse phase (a chain file, hashed once for all its parts).
        var sha256: String?

        var pharmacyID: String? { header?.pharmacyID ?? part?.pharmacyID }
    }

    /// One unit of parse work: all the candidate feeds of one pharmacy, or a
    /// single feed whose header could not be read (it only yields rejects).
    struct Task: Sendable {
        var pharmacyID: String?
        var candidates: [Candidate]
        /// What `current` holds for this pharmacy: nothing older or as old may replace it.
        var current: CurrentStock?
    }

    let tasks: [Task]

    init(_ candidates: [Candidate], current: [String: CurrentStock] = [:]) {
        var byPharmacy: [String: [Candidate]] = [:]
        var headerless: [Candidate] = []
        for candidate in candidates {
            if let id = candidate.pharmacyID {
                byPharmacy[id, default: []].append(candidate)
            } else {
                headerless.append(candidate)
            }
        }
        var tasks = byPharmacy
            .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            .map { id, feeds in
                Task(pharmacyID: id, candidates: feeds.sorted(by: Self.newestFirst), current: current[id])
            }
        tasks += headerless.map { Task(pharmacyID: nil, candidates: [$0]) }
        self.tasks = tasks
    }

    /// Newest export first; the same moment twice: the later file name wins;
    /// a chain part whose export date could not be read comes last.
    static func newestFirst(_ a: Candidate, _ b: Candidate) -> Bool {
        switch (a.header?.exportedAt, b.header?.exportedAt) {
        case let (ta?, tb?) where ta.epochSeconds != tb.epochSeconds: return ta.epochSeconds > tb.epochSeconds
        case (_?, nil): return true
        case (nil, _?): return false
        default: return b.file.name.utf8.lexicographicallyPrecedes(a.file.name.utf8)
        }
    }
}

/// The stock data `current` holds for one pharmacy: the export it came from
/// and, when the manifest says, that file's SHA-256.
struct CurrentStock: Sendable, Equatable {
    var exportedAt: ExportTimestamp
    var sha256: String?
    var version: String
    /// The bytes of every export of this pharmacy the ledger holds (`loaded_exports`), `sha256` among them.
    var loadedDigests: Set<String> = []
}
