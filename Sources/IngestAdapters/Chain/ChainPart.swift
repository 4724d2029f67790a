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
    /// The export date as the header's row wrote it, and that row's line:
    /// a later row that writes another is compared as a date.
    private var headerDateText: String?
    private var headerLine = 0
    /// Rows of this pharmacy carry different export dates (and the mapping
    /// does not say the date is per row): which is the export's is unknown,
    /// so the part is rejected whole with this.
    private(set) var mixedDates: FeedFailure?

    init(pharmacyID: String, file: String, spillPath: String) {
        self.pharmacyID = pharmacyID
        collected = FeedOutput(file: file, retainsRecords: false)
        spill = OfferSpill.Writer(path: spillPath)
    }

    func settleHeader(_ header: Result<StockFeedHeader, FeedFailure>, dateText: String? = nil, line: Int = 0) {
        headerSettled = true
        (headerDateText, headerLine) = (dateText, line)
        switch header {
        case .success(let header): self.header = header
        case .failure(let problem): headerProblem = problem
        }
    }

    /// A later row's export date (`text`, read by `parse` only when it is
    /// written otherwise than the header's). With `perRow` the part takes
    /// the latest date of its rows (time only moves forward); without it, a
    /// different date rejects the part `mixed_export_dates`.
    func checkExportDate(_ text: String?, line: Int, perRow: Bool, parse: () -> Result<StockFeedHeader, FeedFailure>) {
        guard let current = header, mixedDates == nil, text != headerDateText, case .success(let row) = parse(),
              row.exportedAt.epochSeconds != current.exportedAt.epochSeconds else { return }
        if perRow {
            if row.exportedAt.epochSeconds > current.exportedAt.epochSeconds { header = row }
            return
        }
        mixedDates = FeedFailure(
            reason: .mixedExportDates,
            message: "rows of pharmacy \(pharmacyID) carry export dates \(current.exportedAt.iso8601) (line \(headerLine)) and "
                + "\(row.exportedAt.iso8601) (line \(line)): which is the export's is unknown ([export] date_per_row = true says "
                + "each row has its own); the pharmacy's rows are not loaded", line: line)
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
        output.failure = fileFailure ?? headerProblem ?? mixedDates
        return header
    }
}

extension RejectReason {
    /// One pharmacy's rows in a chain file with different export dates (FEEDS.md §12).
    public static let mixedExportDates = RejectReason(rawValue: "mixed_export_dates")
}
