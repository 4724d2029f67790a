import Foundation
import IngestCore

/// How to read one kind of delimited or XML stock feed (FEEDS.md §3 and §4),
/// as a mapping file in `mappings/` describes it.
public struct StockFeedMapping: Sendable {
    public enum Layout: Sendable {
        /// Delimited text read by libcsv.
        case delimited(delimiter: UInt8, quote: UInt8, hasHeader: Bool)
        /// Fixed-width lines read by the same machinery, after `headerLines`
        /// lines; every column is a `FixedWidthRange` key.
        case fixedWidth(headerLines: Int)
        /// JSON with the records at a JSON Pointer; JSON Lines (one record a line) when nil.
        case json(recordPointer: String?)
        /// XML: one record per `recordElement` (local name, optionally in a namespace).
        case xml(recordElement: String, namespace: String?)
    }

    /// Where a value comes from: a column (name, 1-based number, or XML path),
    /// a capture of the file name, or a fixed value.
    public enum Source: Sendable, Hashable {
        case column(String)
        case fileName(pattern: String)
        case fixed(String)
    }

    /// The file name without `.mapping.toml`; the adapter is `mapping:<name>`.
    public let name: String
    /// The mapping file, for messages.
    public let file: String
    public let fileNameGlob: String?
    /// Header columns (delimited) that must all be present for the file to be claimed.
    public let requiredColumns: [String]
    public let layout: Layout
    /// The file's charset as iconv names it (`UTF-8`, `windows-1252`, `utf-16`).
    public let encoding: String
    public let decimalSeparator: UInt8
    public let dateFormat: MappedDateFormat
    public let timeZone: TimeZone
    public let currency: Source
    /// nil when prices include VAT; otherwise where the VAT rate (percent) comes from.
    public let vatRate: Source?
    public let pharmacyID: Source
    public let exportedAt: Source
    /// Columns (or XML paths) of the record fields; for a field of several
    /// columns, the first (`joinedColumns` has them all).
    public let columns: [CanonicalField: String]
    /// Fields read from several columns, joined with one space, empty parts
    /// left out (FEEDS.md §12: `name = ["Bezeichnung", "Darreichungsform"]`).
    public var joinedColumns: [CanonicalField: [String]] = [:]
    /// Per field position: the texts (trimmed) that mean "no value"; the
    /// empty text always does (`[format] missing_values`, `[missing_values]`).
    public var missingValues: [Set<String>] = Array(repeating: [""], count: CanonicalField.allCases.count)
    /// Records to leave out, rejected `filtered` (`[filter] skip_when`): any one true skips.
    public var skipWhen: [SkipCondition] = []
    /// This kind of file's own reject-rate limit (`[limits] max_reject_rate`),
    /// unless the command line gives one.
    public var maxRejectRatePercent: Int?
    /// `[export] date_per_row = true`: each row of a chain file carries its
    /// own export date, and a pharmacy's part takes its latest; else rows of
    /// one pharmacy with different dates reject the part `mixed_export_dates`.
    public var exportDatePerRow = false
    /// What the mapped file is: stock (the default), a pharmacy registry or a medicine register.
    public var kind = MappingKind.stock
    /// `[prices] price_unit = "minor"`: prices are written in cents, pence, öre.
    public var pricesInMinorUnits = false
    /// `[prices] thousands`: the separator of digit groups in prices, if the file writes one.
    public var thousandsSeparator: Unicode.Scalar?
    /// `[constants]`: fields every record of the file shares (FEEDS.md §12.1).
    public var constants: [CanonicalField: String] = [:]
    /// `[export] date = "modified"` or `"run"`: a file with no date of its
    /// own takes its modification time or the run's (FEEDS.md §12.1); the
    /// same bytes are still never loaded twice (the `loaded_exports` ledger).
    public var exportTimeOrigin: ExportTimeOrigin?
    /// `[values]`: per field, values as written (`MappedFieldValue.lookupKey`) and as meant.
    public var translations: [CanonicalField: [String: String]] = [:]

    public var adapterName: String { "mapping:\(name)" }

    /// Every column (or path) the records are read from: fields, joined parts, filter columns.
    public var readColumns: Set<String> {
        Set(columns.values).union(joinedColumns.values.joined()).union(skipWhen.map(\.column))
    }

    public enum ExportTimeOrigin: String, Sendable {
        case modified
        case run
    }

    /// The export time `file` takes when the mapping says the file has
    /// none of its own; nil when the file or the mapping names one.
    public func exportTime(of file: FeedFile) -> ExportTimestamp? {
        let seconds: Int64
        switch exportTimeOrigin {
        case nil: return nil
        case .run: return file.runTime ?? ExportTimestamp.tallinnTime(Date())
        case .modified: seconds = file.modifiedAt ?? Int64(Date().timeIntervalSince1970)
        }
        return ExportTimestamp(epochSeconds: seconds, utcOffsetSeconds: timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
    }

    /// One condition of `[filter] skip_when`.
    public struct SkipCondition: Sendable, Equatable {
        public enum Test: Sendable, Equatable {
            case equals(String)
            case notEquals(String)
            /// A regular expression that must match the whole value.
            case matches(String)
        }

        /// A column name (or number) of a delimited file, a path of an XML one.
        public var column: String
        public var test: Test

        public init(column: String, test: Test) {
            self.column = column
            self.test = test
        }
    }
}
