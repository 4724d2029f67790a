import IngestAdapters
import IngestCore
import IngestSnapshot

/// One kind of reference data on its way from files to the snapshot: what
/// its adapter's records add up to tonight, what is kept from yesterday when
/// no file of it came, and the tables it writes. The pipeline loads every
/// kind through this one path (`ReferenceData.load`); a new kind is its
/// adapter, one of these, and a line in `BuiltInFormats`
/// (docs/ADDING_A_FORMAT.md).
protocol ReferenceSet {
    associatedtype Adapter: FeedAdapter
    /// The adapter that claims and reads this kind's files (one instance,
    /// listed in the catalogue through `BuiltInFormats`).
    static var adapter: Adapter { get }
    /// How several files of the kind on one night combine.
    static var selection: ReferenceSelection { get }
    /// The snapshot tables this kind writes (SNAPSHOT.md).
    static var tables: [SnapshotTable] { get }
    /// The date a file of a dated kind (`latestInForce`) is valid from; nil when it has none.
    static func validFrom(_ file: FeedFile, header: Adapter.Header?) -> String?
    /// Why a whole file of the kind cannot serve a snapshot in `currency`
    /// (a list of amounts in another one); nil when it can.
    static func problem(_ file: FeedFile, header: Adapter.Header?, snapshotCurrency currency: String) -> FeedFailure?

    init()
    var isEmpty: Bool { get }
    /// Takes a loaded file's accepted records (rejects and warnings are in
    /// the report already). `loaded` holds the kinds loaded before this one,
    /// in `BuiltInFormats.references` order.
    mutating func add(_ records: [Adapter.Record], from file: FeedFile, loaded: ReferenceData, report: inout RunReport) throws
    /// Yesterday's rows, for a night on which no file of the kind was
    /// accepted. False when yesterday had none either.
    mutating func keep(from previous: PreviousSnapshot) throws -> Bool
    /// Its rows into the snapshot; runs after items and offers are written.
    func write(to writer: SnapshotWriter) throws
}

/// How several files of one reference kind on one night combine.
enum ReferenceSelection {
    /// Every file is loaded; a key's first mention wins (registries, code lists, datasheets).
    case everyFile
    /// Dated files (FEEDS.md §6, §11): the valid one with the latest date not
    /// after the run's is in force, the others are `superseded`. The date
    /// comes from the file (`validFrom`); it is kept in `meta` under `metaKey`.
    case latestInForce(metaKey: String)
}

extension ReferenceSet {
    static var kind: FeedKind { adapter.kind }
    static var selection: ReferenceSelection { .everyFile }
    static var tables: [SnapshotTable] { [] }
    /// A kind that is not dated has no such date; a dated kind says where its date is.
    static func validFrom(_ file: FeedFile, header: Adapter.Header?) -> String? { nil }
    /// A kind without amounts serves a snapshot in any currency.
    static func problem(_ file: FeedFile, header: Adapter.Header?, snapshotCurrency currency: String) -> FeedFailure? { nil }
}
