import IngestCore

/// One pharmacy's share of a chain file (FEEDS.md §3: one file, many
/// pharmacies, the id in a column). The file is parsed once, when it is
/// split; each part then plans, competes with the pharmacy's other feeds,
/// passes the reject-rate gate and is reported on its own, like a file.
///
/// A class: the split fills it row by row through the router, and the plan
/// shares it with the parse thread that replays it. Not mutated after the
/// split, so handing it to one other thread is safe.
public final class ChainPart: @unchecked Sendable {
    public let pharmacyID: String
    /// From the pharmacy's first well-formed row; nil when that row's export date is bad.
    public private(set) var header: StockFeedHeader?
    /// Why the part has no header: it is rejected whole with this.
    public private(set) var headerProblem: FeedFailure?
    /// The whole file's failure (an unclosed quote, a renamed column): every
    /// part of the file is rejected with it.
    public internal(set) var fileFailure: FeedFailure?
    /// This pharmacy's rejected rows and warnings; accepted rows are counted
    /// here and kept in `spill`.
    var collected: FeedOutput<StockOffer>
    private var spill: OfferSpill.Writer

    /// Whether a well-formed row has set the header (or its problem) yet: a
    /// malformed row (a field missing) says nothing about the export date.
    private(set) var headerSettled = false

    init(pharmacyID: String, file: String, spillPath: String) {
        self.pharmacyID = pharmacyID
        collected = FeedOutput(file: file, retainsRecords: false)
        spill = OfferSpill.Writer(path: spillPath)
    }

    func settleHeader(_ header: Result<StockFeedHeader, FeedFailure>) {
        headerSettled = true
        switch header {
        case .success(let header): self.header = header
        case .failure(let problem): headerProblem = problem
        }
    }

    public var spillPath: String { spill.path }

    func accept(_ offer: StockOffer) throws(POSIXFailure) {
        collected.accept(offer)
        try spill.append(offer)
    }

    func finishSplit() throws(POSIXFailure) {
        if !headerSettled {
            headerProblem = FeedFailure(reason: .badHeader, message: "no row of pharmacy \(pharmacyID) is well-formed enough to give its export date")
        }
        try spill.finish()
    }

    /// The part as its adapter would have parsed a file of its own: rejects
    /// and warnings from the split, then the spilled offers, each aptcode
    /// once (a later duplicate is rejected, as in a single file; through a
    /// sink, by the sorter behind it).
    public func replay(into output: inout FeedOutput<StockOffer>) throws -> StockFeedHeader? {
        for reject in collected.rejects {
            output.reject(line: reject.line, key: reject.key, reason: reject.reason, message: reject.message, field: reject.field)
        }
        for warning in collected.warnings {
            output.warn(line: warning.line, key: warning.key, code: warning.code, message: warning.message)
        }
        var result = output
        try OfferSpill.read(path: spill.path) { offer in
            if result.isFirstOccurrence(offer.aptcode) {
                result.accept(offer)
            } else {
                result.reject(StockFieldRules.duplicate(offer.aptcode), line: offer.line, key: offer.aptcode)
            }
        }
        output = result
        output.failure = fileFailure ?? headerProblem
        return header
    }
}
