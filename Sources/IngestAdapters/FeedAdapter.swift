import IngestCore

/// The one thing every input format implements: which files it claims, what
/// kind of records it makes, and how it parses a file into an output that
/// can only accept or reject (`FeedOutput`), so `read = accepted + rejected`
/// holds whatever the adapter does. Files are claimed by their content
/// (`recognises`, on the sample), never by name alone; `parse` reads the
/// input through `FeedFile.openStream()`, a file or bytes in memory alike.
///
/// An adapter never throws: a record it cannot take is a reject with its
/// line and field; a file it cannot take is the output's `failure`.
public protocol FeedAdapter<Record>: Sendable {
    /// What one accepted record is: `StockOffer`, `ATCGroup`, …
    associatedtype Record: LocatedRecord
    /// What the file says of itself, when it says anything the pipeline
    /// needs (a stock export's pharmacy and time, a list's validity date);
    /// `NoHeader` when nothing.
    associatedtype Header: Sendable = NoHeader

    /// Short, stable name used in reports and manifests (`rax`).
    var name: String { get }
    /// One line for `ingest adapters`: the format and what it is recognised by.
    var summary: String { get }
    var kind: FeedKind { get }
    /// This kind of file's own reject-rate limit (a mapping's `[limits]
    /// max_reject_rate`); nil: the run's. For stock the command line wins
    /// over it; for reference files it wins (FEEDS.md §12.1).
    var maxRejectRatePercent: Int? { get }
    func recognises(_ file: FeedFile) -> Bool
    /// Parses the whole input; returns the header when it could be read.
    func parse(_ file: FeedFile, into output: inout FeedOutput<Record>) -> Header?
}

/// The header of a format whose files say nothing of themselves the pipeline needs.
public enum NoHeader: Sendable {}

extension FeedAdapter {
    /// Parses into a fresh output that keeps the records in memory: for
    /// reference files (a few MB), tests and tools. A stock run gives its
    /// output a sink instead.
    public func parse(_ file: FeedFile) -> FeedOutput<Record> {
        var output = FeedOutput<Record>(file: file.name)
        _ = parse(file, into: &output)
        return output
    }
}

/// A pharmacy's nightly stock export, in whatever format.
public protocol StockFeedAdapter: FeedAdapter where Record == StockOffer, Header == StockFeedHeader {
    /// Reads only the head of the file: enough to plan the run.
    func readHeader(_ file: FeedFile) throws(FeedFailure) -> StockFeedHeader
    /// Whether the export time is written in the file's bytes: then the
    /// same bytes always carry the same time, and a re-sent file is
    /// `not_newer`. A time from the name, the mapping, the file's
    /// modification or the run says nothing of the bytes, so the run checks
    /// them against the exports already loaded (FEEDS.md §12.1).
    var exportTimeInContent: Bool { get }
}

/// A stock format whose records may each name their pharmacy: a chain's
/// export holds many pharmacies in one file, in any order (FEEDS.md §3).
/// Such a file is split once, each pharmacy's rows into its own part, and
/// every part is then planned like a file of its own.
public protocol ChainFeedAdapter: StockFeedAdapter {
    /// True when the pharmacy id comes from each record, not from the file.
    var pharmacyPerRecord: Bool { get }
    /// Parses the whole file into `router`'s parts. The output returned
    /// holds what belongs to no pharmacy (a row without an id, a row that
    /// could not be read far enough to find it) and the file's failure.
    func split(_ file: FeedFile, into router: ChainRouter) -> FeedOutput<StockOffer>
}

extension ChainFeedAdapter {
    public var pharmacyPerRecord: Bool { false }
}

extension StockFeedAdapter {
    public var kind: FeedKind { .stock }
    public var exportTimeInContent: Bool { true }
}

extension StockFeedMapping {
    /// An `exported_at` column: the time is in the bytes.
    public var exportTimeInContent: Bool {
        if case .column = exportedAt { return true }
        return false
    }
}

extension FeedAdapter {
    public var maxRejectRatePercent: Int? { nil }
}
