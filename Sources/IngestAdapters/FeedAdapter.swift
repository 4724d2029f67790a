import IngestCore

/// What a feed is for; decides where the pipeline sends its records.
public enum FeedKind: String, Sendable, Codable, CaseIterable {
    case stock
    case pharmacyRegistry = "pharmacy_registry"
    case reimbursementList = "reimbursement_list"
    case atc
    case icd10
    case gs1
    case medicineRegister = "medicine_register"
}

/// An adapter turns one kind of file into canonical records. It claims files
/// by their content (`recognises`), never by name alone.
public protocol FeedAdapter: Sendable {
    /// Short, stable name used in reports and manifests (`rax`).
    var name: String { get }
    /// One line for `ingest adapters`: the format and what it is recognised by.
    var summary: String { get }
    var kind: FeedKind { get }
    func recognises(_ file: FeedFile) -> Bool
}

/// A pharmacy's nightly stock export, in whatever format.
public protocol StockFeedAdapter: FeedAdapter {
    /// Reads only the head of the file: enough to plan the run.
    func readHeader(_ file: FeedFile) throws(FeedFailure) -> StockFeedHeader
    /// Parses the whole file. Never throws: problems become rejects or the
    /// output's `failure`. The header is returned when it could be read.
    func parse(_ file: FeedFile, into output: inout FeedOutput<StockOffer>) -> StockFeedHeader?
}

extension FeedAdapter {
    public var kind: FeedKind { .stock }
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
