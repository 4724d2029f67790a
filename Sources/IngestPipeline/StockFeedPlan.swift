import IngestAdapters
import IngestCore

/// Which stock feeds are parsed tonight and in what order.
///
/// Feeds are grouped by the pharmacy their header names; within a pharmacy
/// the newest export (by its own timestamp, not the file's) is tried first,
/// and an older one only if every newer one is rejected. Pharmacies are
/// taken in id byte order, so offers reach the writer in primary-key order.
struct StockFeedPlan {
    struct Candidate: Sendable {
        var file: FeedFile
        var adapter: any StockFeedAdapter
        var header: StockFeedHeader?
    }

    /// One unit of parse work: all the candidate feeds of one pharmacy, or a
    /// single feed whose header could not be read (it only yields rejects).
    struct Task: Sendable {
        var pharmacyID: String?
        var candidates: [Candidate]
    }

    let tasks: [Task]

    init(_ candidates: [Candidate]) {
        var byPharmacy: [String: [Candidate]] = [:]
        var headerless: [Candidate] = []
        for candidate in candidates {
            if let id = candidate.header?.pharmacyID {
                byPharmacy[id, default: []].append(candidate)
            } else {
                headerless.append(candidate)
            }
        }
        var tasks = byPharmacy
            .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            .map { id, feeds in
                Task(pharmacyID: id, candidates: feeds.sorted { a, b in
                    let (ta, tb) = (a.header!.exportedAt, b.header!.exportedAt)
                    // Newest first; the same moment twice: the later file name wins.
                    return ta != tb ? ta > tb : b.file.name.utf8.lexicographicallyPrecedes(a.file.name.utf8)
                })
            }
        tasks += headerless.map { Task(pharmacyID: nil, candidates: [$0]) }
        self.tasks = tasks
    }
}
