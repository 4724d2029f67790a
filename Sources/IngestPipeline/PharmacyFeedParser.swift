import IngestAdapters
import IngestCore
import IngestSnapshot

/// Parse work for one pharmacy, run on a parse thread: try its feeds newest
/// first until one is valid; that one is loaded, newer rejected ones stay
/// rejected, older ones are superseded.
struct PharmacyFeedParser: Sendable {
    /// A run-level check of a parsed feed (a fee period for its date); a
    /// failure rejects the feed whole, so an older one may stand in.
    var check: @Sendable (StockFeedHeader) -> FeedFailure? = { _ in nil }
    var gates = QualityGates()

    struct Result: Sendable {
        var pharmacyID: String?
        var header: StockFeedHeader?
        /// The loaded feed's offers, sorted by aptcode byte order.
        var offers: [StockOffer] = []
        var feeds: [FeedResult] = []
        var rejects: [Reject] = []
        var warnings: [Warning] = []
    }

    func parse(_ task: StockFeedPlan.Task) -> Result {
        var result = Result(pharmacyID: task.pharmacyID)
        var loadedFile: String?
        for candidate in task.candidates {
            let file = candidate.file
            var feed = FeedResult(
                file: file.name, size: file.size, sha256: Self.digest(file.path), kind: FeedKind.stock.rawValue,
                adapter: candidate.adapter.name, outcome: .loaded)
            feed.pharmacyID = candidate.header?.pharmacyID
            feed.exportedAt = candidate.header?.exportedAt.iso8601
            if let loadedFile {
                feed.outcome = .superseded
                feed.message = "a newer valid feed of pharmacy \(task.pharmacyID ?? "?") is loaded: \(loadedFile)"
                result.feeds.append(feed)
                continue
            }
            var output = FeedOutput<StockOffer>(file: file.name)
            let header = candidate.adapter.parse(file, into: &output)
            if header?.pharmacyID != candidate.header?.pharmacyID, output.failure == nil {
                output.failure = FeedFailure(reason: .badHeader, message: "the header changed while the run read the file")
            }
            if output.failure == nil, let header, let problem = check(header) {
                output.failure = problem
            }
            if output.failure == nil, gates.rejectRateExceeded(read: output.read, rejected: output.rejected) {
                output.failure = FeedFailure(
                    reason: .rejectRateExceeded,
                    message: "\(output.rejected) of \(output.read) records rejected, over the \(gates.maxRejectRatePercent) % allowed; the feed is not loaded")
            }
            if let failure = output.failure {
                output = output.rejectingAll()
                feed.outcome = .rejected
                feed.message = "\(failure.reason) at line \(failure.line): \(failure.message)"
            } else {
                loadedFile = file.name
                result.header = header
                // Exports are usually in aptcode order already: check before sorting.
                let records = output.records
                result.offers = Self.isInKeyOrder(records) ? records : records.sorted { precedesInByteOrder($0.aptcode, $1.aptcode) }
            }
            feed.count(output)
            result.rejects += output.rejects
            result.warnings += output.warnings
            result.feeds.append(feed)
        }
        return result
    }

    /// By index: zipping the array with itself copied every offer twice,
    /// retaining and releasing fourteen strings per offer.
    static func isInKeyOrder(_ offers: [StockOffer]) -> Bool {
        for index in offers.indices.dropFirst() where !precedesInByteOrder(offers[index - 1].aptcode, offers[index].aptcode) {
            return false
        }
        return true
    }

    /// Empty when the file cannot be read any more; the manifest then shows it.
    static func digest(_ path: String) -> String {
        (try? FileDigest.sha256(path: path)) ?? ""
    }
}
