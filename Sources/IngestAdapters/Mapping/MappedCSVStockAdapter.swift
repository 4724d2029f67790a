import Foundation
import IngestCore

/// A delimited or fixed-width stock feed read through a mapping (FEEDS.md §3,
/// §12): libcsv does the RFC 4180 work (for fixed-width files, the encodings,
/// line ends and line numbers), the mapping says which column is which.
public struct MappedCSVStockAdapter: ChainFeedAdapter {
    public let mapping: StockFeedMapping
    public var name: String { mapping.adapterName }
    public var maxRejectRatePercent: Int? { mapping.maxRejectRatePercent }
    public var exportTimeInContent: Bool { mapping.exportTimeInContent }
    public var summary: String {
        var rules: [String] = []
        if let glob = mapping.fileNameGlob { rules.append("file name \(glob)") }
        if !mapping.requiredColumns.isEmpty { rules.append("header columns \(mapping.requiredColumns.joined(separator: ", "))") }
        if case .fixedWidth = mapping.layout {
            return "Fixed-width stock feed by \(mapping.file) (FEEDS.md §12); recognised by \(rules.joined(separator: " and "))"
        }
        return "Delimited stock feed by \(mapping.file) (FEEDS.md §3); recognised by \(rules.joined(separator: " and "))"
    }

    /// The delimiter, quote and header of a delimited file (fixed-width lines are read whole).
    private let settings: (delimiter: UInt8, quote: UInt8, hasHeader: Bool)
    /// The lines a fixed-width file skips first; nil for a delimited file.
    private let fixedHeaderLines: Int?

    init(mapping: StockFeedMapping, settings: (delimiter: UInt8, quote: UInt8, hasHeader: Bool), fixedHeaderLines: Int?) {
        self.mapping = mapping
        self.settings = settings
        self.fixedHeaderLines = fixedHeaderLines
    }

    /// nil for a mapping of another layout (`MappedStockReader` picks the adapter a layout calls for).
    public init?(mapping: StockFeedMapping) {
        guard case .delimited(let adapter) = MappedStockReader(mapping) else { return nil }
        self = adapter
    }

    private func fileReader() -> DelimitedFileReader {
        if fixedHeaderLines != nil { return DelimitedFileReader(wholeLinesIn: mapping.encoding) }
        let (delimiter, quote, _) = settings
        return DelimitedFileReader(delimiter: delimiter, quote: quote, encoding: mapping.encoding)
    }

    public func recognises(_ file: FeedFile) -> Bool {
        if let glob = mapping.fileNameGlob, fnmatch(glob, file.name, 0) != 0 { return false }
        guard !mapping.requiredColumns.isEmpty else { return true }
        let reader = fileReader()
        guard let header = reader.firstRow(of: file.sample[...]) else { return false }
        let names = Set(header.compactMap { decode($0)?.trimmed })
        return mapping.requiredColumns.allSatisfy(names.contains)
    }

    /// Rows are UTF-8 whatever the file's charset: the reader transcodes.
    func decode(_ buffer: UnsafeBufferPointer<UInt8>) -> String? { UTF8Text.string(buffer) }

    func decode(_ bytes: [UInt8]) -> String? { bytes.withUnsafeBufferPointer { decode($0) } }

    public func readHeader(_ file: FeedFile) throws(FeedFailure) -> StockFeedHeader {
        var output = FeedOutput<StockOffer>(file: file.name)
        let reader = read(file, into: &output, stopAfterFirstRecord: true)
        guard let header = reader?.header else {
            throw reader?.headerProblem ?? output.failure ?? FeedFailure(reason: .badHeader, message: "no data row to take the pharmacy and export date from")
        }
        return header
    }

    public var pharmacyPerRecord: Bool {
        if case .column = mapping.pharmacyID { return true }
        return false
    }

    public func split(_ file: FeedFile, into router: ChainRouter) -> FeedOutput<StockOffer> {
        var output = FeedOutput<StockOffer>(file: file.name)
        _ = read(file, into: &output, stopAfterFirstRecord: false, router: router)
        return output
    }

    public func parse(_ file: FeedFile, into output: inout FeedOutput<StockOffer>) -> StockFeedHeader? {
        parse(file, into: &output, rows: nil)
    }

    /// `rows` set: a registry or register mapping's records go there (`MappedRows`).
    func parse(_ file: FeedFile, into output: inout FeedOutput<StockOffer>, rows: ((Int, MappedRecordReader) -> Void)?) -> StockFeedHeader? {
        let reader = read(file, into: &output, stopAfterFirstRecord: false, rows: rows)
        if output.failure == nil, let problem = reader?.headerProblem { output.failure = problem }
        if output.failure == nil, reader?.header == nil, output.read == 0 {
            // An empty feed says nothing about its pharmacy; it cannot stand in for one.
            output.failure = FeedFailure(reason: .badHeader, message: "the feed has no data rows")
        }
        return reader?.header
    }

    private struct StopReading: Error {}

    private func read(_ file: FeedFile, into output: inout FeedOutput<StockOffer>, stopAfterFirstRecord: Bool,
                      router: ChainRouter? = nil, rows: ((Int, MappedRecordReader) -> Void)? = nil) -> MappedRecordReader? {
        let records = MappedRecordReader(mapping: mapping, fileName: file.name, exportTime: mapping.exportTime(of: file), router: router)
        records.rowSink = rows
        let hasHeader = settings.hasHeader
        let fields = CanonicalField.allCases
        // Column indexes of each canonical field (several when joined) and of
        // each filter condition, resolved once per file.
        var fieldColumns = [[Int]](repeating: [], count: fields.count)
        var conditionColumn = [Int?](repeating: nil, count: mapping.skipWhen.count)
        var columnName: [Int: String] = [:]
        func names(of field: CanonicalField) -> [String] { mapping.joinedColumns[field] ?? mapping.columns[field].map { [$0] } ?? [] }
        func resolve(_ index: (String) -> Int?) {
            for (position, field) in fields.enumerated() { fieldColumns[position] = names(of: field).compactMap(index) }
            for (position, condition) in mapping.skipWhen.enumerated() { conditionColumn[position] = index(condition.column) }
        }
        // A fixed-width line is cut into the mapping's ranges, one cell each, in this order.
        let fixedRanges = fixedHeaderLines == nil ? [] : mapping.readColumns.compactMap(FixedWidthRange.init(key:)).sorted { ($0.first, $0.last) < ($1.first, $1.last) }
        var fixedCells = [String?](repeating: nil, count: fixedRanges.count)
        if let _ = fixedHeaderLines {
            let index = Dictionary(uniqueKeysWithValues: fixedRanges.enumerated().map { ($1.key, $0) })
            resolve { index[$0] }
            for (position, range) in fixedRanges.enumerated() { columnName[position] = "characters \(range.first)-\(range.last)" }
        } else if !hasHeader {
            resolve { Int($0).map { $0 - 1 } }
        }
        var headerCount: Int?
        var headerFailure: FeedFailure?
        /// The first header's names, to tell a header row again mid-file.
        var firstHeader = Set<String>()
        /// Why the rows after a header row mid-file cannot be read (it lacks a mapped column).
        var laterHeaderFault: String?
        var result = output
        let lanes = router.flatMap { $0.lanes > 1 ? Self.lanes(for: $0, mapping: mapping, file: file) : nil }
        /// The current row (`records.fields`) read, or rejected whole: on its pharmacy's lane when there are lanes.
        func deliver(line: Int, reject: LaneRow.Reject? = nil) {
            if let lanes, let id = records.value(.pharmacyID), !id.isEmpty {
                lanes.submit(LaneRow(line: line, fields: records.fields, conditions: records.conditionValues, reject: reject), key: id)
                // The lane owns these values now. Writing the next row into
                // the shared array would copy it first, a retain for every
                // value: a third of the reading thread's time (perf), and
                // that thread sets the split's pace.
                records.fields = Array(repeating: nil, count: fields.count)
                if !records.conditionValues.isEmpty { records.conditionValues = Array(repeating: nil, count: records.conditionValues.count) }
            } else if let reject {
                records.rejectRow(line: line, reason: reject.reason, message: reject.message, field: reject.field, output: &result)
            } else {
                records.read(line: line, output: &result)
            }
        }
        do {
            try fileReader().read(file) { row in
                /// Reads `row` as the header the rows after it follow; the
                /// mapped column it lacks, with the header's columns, if any.
                func adoptHeader() throws -> (missing: (column: String, field: String), columns: String)? {
                    var columnIndex: [String: Int] = [:]
                    columnName = [:]
                    for index in 0..<row.count {
                        guard let name = decode(row.field(index))?.trimmed else {
                            throw FeedFailure(reason: .badEncoding, message: "header column \(index + 1) is not \(mapping.encoding) text", line: row.line)
                        }
                        if columnIndex[name] == nil { columnIndex[name] = index }
                        columnName[index] = name
                    }
                    resolve { columnIndex[$0] }
                    headerCount = row.count
                    let wanted = fields.flatMap { field in names(of: field).map { ($0, field.rawValue) } }
                        + mapping.skipWhen.map { ($0.column, "the filter") }
                    guard let missing = wanted.sorted(by: { $0.1 < $1.1 }).first(where: { columnIndex[$0.0] == nil }) else { return nil }
                    return (missing, (0..<row.count).compactMap { columnName[$0] }.map { "'\($0)'" }.joined(separator: ", "))
                }
                if hasHeader, headerCount == nil {
                    if let fault = try adoptHeader() {
                        // Keep reading: every row is counted and rejected with the header's fault.
                        headerFailure = FeedFailure(reason: .badHeader, message: "the header has no column '\(fault.missing.column)' for \(fault.missing.field) (renamed?); its columns are \(fault.columns); the feed is not loaded", line: row.line)
                    }
                    firstHeader = Set(columnName.values)
                    return
                }
                // A header again mid-file (two exports concatenated, columns
                // in another order): the rows after it are read by it, or
                // rejected when it lacks a mapped column. Only a row whose
                // first cell is a name of the first header is looked at whole.
                if hasHeader, headerFailure == nil, row.count > 1, let first = decode(row.field(0).trimmedASCII), firstHeader.contains(first) {
                    let cells = (0..<row.count).compactMap { decode(row.field($0).trimmedASCII) }
                    if cells.filter(firstHeader.contains).count * 2 >= row.count {
                        if let fault = try adoptHeader() {
                            laterHeaderFault = "read by the header at line \(row.line), which has no column '\(fault.missing.column)' for \(fault.missing.field); its columns are \(fault.columns)"
                        } else {
                            laterHeaderFault = nil
                        }
                        return
                    }
                }
                if let headerFailure, stopAfterFirstRecord { throw headerFailure }
                var undecodable: String?
                if let skip = fixedHeaderLines {
                    if row.line <= skip { return }
                    // One field unless bytes that are not UTF-8 split it (0xFE, 0xFF).
                    if row.count == 1, let line = decode(row.field(0)) {
                        let cut = FixedWidthLine(line)
                        for position in fixedRanges.indices { fixedCells[position] = fixedRanges[position].text(in: cut) }
                    } else {
                        for position in fixedCells.indices { fixedCells[position] = nil }
                        undecodable = "line"
                    }
                }
                // Decode only the mapped fields, trimmed as bytes (ASCII padding
                // never changes how the rest decodes). A field that does not
                // decode is left empty, so the rest (the key, the pharmacy)
                // still names the row in its reject.
                func text(_ column: Int) -> String? {
                    if fixedHeaderLines != nil { return fixedCells[column] }
                    guard column < row.count else { return nil }
                    guard let text = decode(row.field(column).trimmedASCII) else {
                        if undecodable == nil { undecodable = columnName[column] ?? "column \(column + 1)" }
                        return nil
                    }
                    return text
                }
                for position in 0..<fields.count {
                    let columns = fieldColumns[position]
                    if columns.count == 1 {
                        records.fields[position] = text(columns[0])
                    } else if columns.isEmpty {
                        records.fields[position] = nil
                    } else {
                        // Several columns: joined with one space, empty parts left out.
                        let parts = columns.compactMap { text($0)?.trimmed }.filter { !$0.isEmpty }
                        records.fields[position] = parts.joined(separator: " ")
                    }
                }
                for position in conditionColumn.indices {
                    records.conditionValues[position] = conditionColumn[position].flatMap { text($0)?.trimmed }
                }
                if let headerFailure {
                    deliver(line: row.line, reject: .init(reason: headerFailure.reason, message: headerFailure.message, field: nil))
                    return
                }
                if let laterHeaderFault {
                    deliver(line: row.line, reject: .init(reason: .badHeader, message: laterHeaderFault, field: "row"))
                    return
                }
                if let expected = headerCount, row.count != expected {
                    deliver(line: row.line, reject: .init(reason: .badFieldCount, message: "row has \(row.count) fields, the header has \(expected)", field: "row"))
                    return
                }
                if let name = undecodable {
                    deliver(line: row.line, reject: .init(reason: .badEncoding, message: "\(name) is not \(mapping.encoding) text", field: name))
                    return
                }
                if stopAfterFirstRecord {
                    records.establishHeader(line: row.line)
                    throw StopReading()
                }
                deliver(line: row.line)
            }
            if let headerFailure { result.failure = headerFailure }
        } catch is StopReading {
        } catch let failure as FeedFailure {
            result.failure = failure
        } catch {
            result.failure = FeedFailure(reason: .unreadable, message: "\(error)")
        }
        lanes?.finish()
        output = result
        return records
    }

    /// A row on its way to a lane: its decoded fields, or why it is rejected whole.
    struct LaneRow: Sendable {
        struct Reject: Sendable {
            var reason: RejectReason
            var message: String
            var field: String?
        }

        var line: Int
        var fields: [String?]
        var conditions: [String?]
        var reject: Reject?
    }

    /// One reader per lane, each routing its rows (all of which name a pharmacy) into `router`'s parts.
    private static func lanes(for router: ChainRouter, mapping: StockFeedMapping, file: FeedFile) -> ChainLanes<LaneRow> {
        let readers = (0..<router.lanes).map { _ in
            MappedRecordReader(mapping: mapping, fileName: file.name, exportTime: mapping.exportTime(of: file), router: router)
        }
        return ChainLanes(count: router.lanes) { lane, row in
            let reader = readers[lane]
            reader.fields = row.fields
            reader.conditionValues = row.conditions
            let id = reader.value(.pharmacyID) ?? ""
            if let reject = row.reject {
                reader.routeReject(line: row.line, pharmacyID: id, router: router, reason: reject.reason, message: reject.message, field: reject.field)
            } else {
                reader.route(line: row.line, pharmacyID: id, router: router)
            }
        }
    }
}
