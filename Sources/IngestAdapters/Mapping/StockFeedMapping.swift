import Foundation
import IngestCore

/// How to read one kind of delimited or XML stock feed (FEEDS.md §3 and §4),
/// as a mapping file in `mappings/` describes it.
public struct StockFeedMapping: Sendable {
    public enum Layout: Sendable {
        /// Delimited text read by libcsv.
        case delimited(delimiter: UInt8, quote: UInt8, hasHeader: Bool)
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
    /// Columns (or XML paths) of the record fields.
    public let columns: [CanonicalField: String]

    public var adapterName: String { "mapping:\(name)" }
}
