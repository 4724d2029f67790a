import Foundation
import IngestAdapters
import IngestCore
import IngestSnapshot

/// Parse work for one pharmacy, run on a parse thread: try its feeds newest
/// first until one is valid; that one is loaded, newer rejected ones stay
/// rejected, older ones are superseded. Time only moves forward (FEEDS.md):
/// a feed no newer than what `current` holds is skipped unread, and one
/// dated too far ahead of the run is rejected.
struct PharmacyFeedParser: Sendable {
    /// A run-level check of a parsed feed (a fee period for its date); a
    /// failure rejects the feed whole, so an older one may stand in.
    var check: @Sendable (StockFeedHeader) -> FeedFailure? = { _ in nil }
    var gates = QualityGates()
    /// The run's time (`--as-of`): an export more than a day after it is `export_in_future`.
    var asOf: ExportTimestamp?
    /// The snapshot's currency (`--currency`): a feed whose prices are in
    /// another is rejected whole, `wrong_currency` (SNAPSHOT.md).
    var currency = "EUR"

    /// Where sort runs and overflowing journals spill (`<prefix>t<task>-…`):
    /// the run's staging area, removed with it or by the next run.
    var spillPrefix: String

    /// How far ahead of the run's time an export may be dated (clock skew, time zones).
    static let futureTolerance: Int64 = 24 * 3600

    struct Result: Sendable {
        var pharmacyID: String?
        var header: StockFeedHeader?
        /// The candidate whose feed is loaded (read again if a later check rejects it after it was written).
        var loaded: StockFeedPlan.Candidate?
        /// The loaded feed's offers, sorted by aptcode byte order, each once.
        var offers = SortedOffers.empty
        var feeds: [FeedResult] = []
        var rejects: Journal<Reject>
        var warnings: Journal<Warning>
        /// A spill that could not be written (a full disk): the run cannot go on.
        var failure: POSIXFailure?

        init(pharmacyID: String?, spillPrefix: String? = nil) {
            self.pharmacyID = pharmacyID
            rejects = Journal(spillPath: spillPrefix.map { "\($0)rejects.jsonl" })
            warnings = Journal(spillPath: spillPrefix.map { "\($0)warnings.jsonl" })
        }
    }

    /// A pharmacy's rejects and warnings as the adapter's sink hands them
    /// over, on the one parse thread that runs the task.
    final class TaskLog {
        var rejects: Journal<Reject>
        var warnings: Journal<Warning>
        var failure: POSIXFailure?

        init(_ result: Result) {
            rejects = result.rejects
            warnings = result.warnings
        }

        func reject(_ reject: Reject) {
            do { try rejects.append(reject) } catch { failure = failure ?? error }
        }

        func warn(_ warning: Warning) {
            do { try warnings.append(warning) } catch { failure = failure ?? error }
        }
    }

    func parse(_ task: StockFeedPlan.Task, index: Int) -> Result {
        let prefix = "\(spillPrefix)t\(index)-"
        var result = Result(pharmacyID: task.pharmacyID, spillPrefix: prefix)
        let log = TaskLog(result)
        var loadedFile: String?
        for (number, candidate) in task.candidates.enumerated() {
            let file = candidate.file
            // A feed that is parsed gets its digest from the parse's own pass
            // (OnePassDigest); one that may be skipped unread needs it first.
            // So does one whose time is not in its bytes, when the ledger knows exports of its pharmacy.
            let digestFirst = loadedFile != nil || Self.exportedNoLater(candidate, than: task.current)
                || (!candidate.adapter.exportTimeInContent && task.current?.loadedDigests.isEmpty == false)
            var feed = FeedResult(
                file: file.name, size: file.size, sha256: candidate.sha256 ?? (digestFirst ? Self.digest(file) : ""),
                kind: FeedKind.stock.rawValue, adapter: candidate.adapter.name, outcome: .loaded)
            feed.pharmacyID = candidate.pharmacyID
            feed.exportedAt = candidate.header?.exportedAt.iso8601
            if let loadedFile {
                feed.outcome = .superseded
                feed.message = "a newer valid feed of pharmacy \(task.pharmacyID ?? "?") is loaded: \(loadedFile)"
                result.feeds.append(feed)
                continue
            }
            if let skip = Self.notNewer(candidate, sha256: feed.sha256, than: task.current)
                ?? Self.alreadyLoaded(candidate, sha256: feed.sha256, than: task.current) {
                feed.outcome = .skipped
                feed.reason = skip.reason
                feed.message = skip.message
                result.feeds.append(feed)
                continue
            }
            let sorter = OfferSorter(spillPrefix: "\(prefix)c\(number)-")
            var output = FeedOutput<StockOffer>(file: file.name, sink: FeedSink(
                accept: { sorter.accept($0) }, reject: { log.reject($0) }, warn: { log.warn($0) }))
            let header: StockFeedHeader?
            if let part = candidate.part {
                do {
                    header = try part.replay(into: &output)
                } catch {
                    header = nil
                    output.failure = FeedFailure(reason: .unreadable, message: "its share of the chain file cannot be read back: \(error)")
                }
            } else {
                let onePass = candidate.sha256 == nil && !digestFirst ? OnePassDigest() : nil
                header = candidate.adapter.parse(onePass.map { file.observed(by: $0) } ?? file, into: &output)
                if let onePass { feed.sha256 = onePass.value(size: file.size) ?? Self.digest(file) }
                if header?.pharmacyID != candidate.header?.pharmacyID, output.failure == nil {
                    output.failure = FeedFailure(reason: .badHeader, message: "the header changed while the run read the file")
                }
            }
            var offers = SortedOffers.empty
            do {
                offers = try sorter.finish { output.revokeDuplicate($0) }
            } catch let failure {
                sorter.discard()
                log.failure = log.failure ?? failure
            }
            if output.failure == nil, let header, let asOf, header.exportedAt.epochSeconds > asOf.epochSeconds + Self.futureTolerance {
                output.failure = FeedFailure(
                    reason: .exportInFuture,
                    message: "exported \(header.exportedAt.iso8601), more than 24 hours after the run's time \(asOf.iso8601)")
            }
            if output.failure == nil, let header, header.currency != currency {
                output.failure = FeedFailure(
                    reason: .wrongCurrency,
                    message: "its prices are in \(header.currency), the snapshot's currency is \(currency) (--currency); never converted at a market rate")
            }
            if output.failure == nil, let header, let problem = check(header) {
                output.failure = problem
            }
            let own = candidate.adapter.maxRejectRatePercent
            if output.failure == nil, gates.rejectRateExceeded(read: output.read, rejected: output.rejected, filtered: output.filtered, own: own) {
                let (counted, failed) = (output.read - output.filtered, output.rejected - output.filtered)
                let filtered = output.filtered > 0 ? " (\(output.filtered) more left out by the mapping's filter)" : ""
                output.failure = FeedFailure(
                    reason: .rejectRateExceeded,
                    message: "\(failed) of \(counted) records rejected (\(Self.percent(failed, of: counted)) %)\(filtered), over the \(gates.maxRejectRate(own: own)) % allowed; the feed is not loaded")
            }
            if let failure = output.failure {
                // The whole file rejected: every offer it accepted becomes a reject with the failure's reason.
                let message = "feed rejected whole (\(failure.reason)): \(failure.message)"
                do {
                    try offers.forEach { output.revoke(line: $0.line, key: $0.aptcode, reason: failure.reason, message: message) }
                } catch {
                    log.failure = log.failure ?? POSIXFailure(operation: "read back the sorted offers of", path: file.name, code: EIO)
                }
                offers.discard()
                feed.reject(failure)
            } else {
                loadedFile = file.name
                result.header = header
                result.loaded = candidate
                result.offers = offers
                if offers.allQuantitiesAbsent {
                    feed.message = "stock not reported: a price list, its \(offers.count) offers have no quantity (NULL)"
                }
            }
            feed.count(output)
            result.feeds.append(feed)
        }
        result.rejects = log.rejects
        result.warnings = log.warnings
        result.failure = log.failure
        return result
    }

    /// The stand-in for a pharmacy whose feeds did not parse within the
    /// budget: each is rejected whole (nothing of them was handed over, so
    /// nothing is counted read), and yesterday's data is carried.
    static func timedOut(_ task: StockFeedPlan.Task, after seconds: TimeInterval) -> Result {
        var result = Result(pharmacyID: task.pharmacyID)
        let failure = timeoutFailure(seconds, what: "pharmacy \(task.pharmacyID ?? "?")'s feeds were not parsed")
        result.feeds = task.candidates.map { candidate in
            var feed = FeedResult(file: candidate.file.name, size: candidate.file.size, sha256: candidate.sha256 ?? "",
                                  kind: FeedKind.stock.rawValue, adapter: candidate.adapter.name, outcome: .rejected)
            feed.pharmacyID = candidate.pharmacyID
            feed.exportedAt = candidate.header?.exportedAt.iso8601
            feed.reject(failure)
            return feed
        }
        return result
    }

    static func timeoutFailure(_ seconds: TimeInterval, what: String) -> FeedFailure {
        let shown = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        return FeedFailure(reason: .limitExceeded, message: "\(what) within \(shown) s (limit feed_timeout); the run went on without them")
    }

    /// Why a feed must not replace what `current` holds: it is exported no
    /// later (`not_newer`), or it is the very file already loaded (`duplicate`).
    static func notNewer(_ candidate: StockFeedPlan.Candidate, sha256: String, than current: CurrentStock?)
        -> (reason: String, message: String)? {
        guard let current, let header = candidate.header, exportedNoLater(candidate, than: current) else { return nil }
        if let loaded = current.sha256, loaded == sha256, !sha256.isEmpty {
            return (FeedSkip.duplicate, "the same file (SHA-256) as the one version \(current.version) holds for pharmacy \(header.pharmacyID); its data is kept")
        }
        return (FeedSkip.notNewer, "exported \(header.exportedAt.iso8601), not newer than the data version \(current.version) holds for pharmacy \(header.pharmacyID) (exported \(current.exportedAt.iso8601)); that data is kept")
    }

    /// Bytes the ledger (`loaded_exports`) holds for the pharmacy, whatever
    /// the time the file's name, mapping or modification gives them: a
    /// touched or renamed file is never loaded again (FEEDS.md §12.1).
    static func alreadyLoaded(_ candidate: StockFeedPlan.Candidate, sha256: String, than current: CurrentStock?)
        -> (reason: String, message: String)? {
        guard let current, !sha256.isEmpty, current.loadedDigests.contains(sha256) else { return nil }
        return (FeedSkip.duplicate, "the same bytes (SHA-256) as an export already loaded for pharmacy \(candidate.pharmacyID ?? "?"), "
                + "whatever its time says (\(candidate.header?.exportedAt.iso8601 ?? "none")); the data version \(current.version) holds is kept")
    }

    /// Whether the candidate's export is no later than what `current` holds for its pharmacy (then it may be skipped unread).
    static func exportedNoLater(_ candidate: StockFeedPlan.Candidate, than current: CurrentStock?) -> Bool {
        guard let current, let header = candidate.header else { return false }
        return header.exportedAt.epochSeconds <= current.exportedAt.epochSeconds
    }

    /// `part` of `whole` in percent with one decimal, rounded half-up (`7.5`).
    static func percent(_ part: Int, of whole: Int) -> String {
        guard whole > 0 else { return "0.0" }
        let tenths = Int(HalfUpRounding.divide(Int128(part) * 1000, by: Int128(whole)))
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// Empty when the file cannot be read any more: the file's own line then
    /// says why (its parse fails the same way), and the manifest shows the gap.
    static func digest(_ file: FeedFile) -> String {
        guard let stream = try? file.openStream() else { return "" }
        return (try? FileDigest.sha256 { buffer, count in try stream.read(into: buffer, count: count) }) ?? ""
    }
}

/// Why a file is skipped unread, as a code in the report and the manifest.
enum FeedSkip {
    /// A stock export no newer than the data `current` holds for its pharmacy.
    static let notNewer = "not_newer"
    /// The very file `current`'s data of that pharmacy came from.
    static let duplicate = "duplicate"
    /// Claimed by two adapters: rejected unread.
    static let ambiguous = "ambiguous"
    /// Rows of a chain file that name no pharmacy (or could not be read far enough to find it).
    static let noPharmacy = "no_pharmacy"
}

extension RejectReason {
    /// An export dated more than 24 hours after the run's time (FEEDS.md: time only moves forward).
    public static let exportInFuture = RejectReason(rawValue: "export_in_future")
}
