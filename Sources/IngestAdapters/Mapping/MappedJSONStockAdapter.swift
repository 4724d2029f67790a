import Foundation
import IngestCore

/// A JSON or JSON Lines stock feed read through a mapping (FEEDS.md §12):
/// the records are the array at a JSON Pointer (`record = "/items"`), or
/// one per line; fields are pointers relative to a record, or absolute
/// (`$/pharmacy`) for values before the records. Streamed through YAJL, so a
/// 1 GB feed costs no more memory than a small one; a truncated file keeps
/// what came before the break.
public struct MappedJSONStockAdapter: ChainFeedAdapter {
    public let mapping: StockFeedMapping
    public var name: String { mapping.adapterName }
    public var maxRejectRatePercent: Int? { mapping.maxRejectRatePercent }
    public var exportTimeInContent: Bool { mapping.exportTimeInContent }
    public var summary: String {
        let shape = recordPointer.map { "JSON stock feed by \(mapping.file) (FEEDS.md §12), records at \($0.isEmpty ? "the root" : $0)" }
            ?? "JSON Lines stock feed by \(mapping.file) (FEEDS.md §12), one record per line"
        return shape + (mapping.fileNameGlob.map { "; recognised by file name \($0)" } ?? "")
    }

    /// The pointer to the array of records; nil for JSON Lines.
    let recordPointer: String?

    init(mapping: StockFeedMapping, recordPointer: String?) {
        self.mapping = mapping
        self.recordPointer = recordPointer
    }

    /// nil for a mapping of another layout (`MappedStockReader` picks the adapter a layout calls for).
    public init?(mapping: StockFeedMapping) {
        guard case .json(let adapter) = MappedStockReader(mapping) else { return nil }
        self = adapter
    }

    public func recognises(_ file: FeedFile) -> Bool {
        guard let glob = mapping.fileNameGlob else { return false }
        return fnmatch(glob, file.name, 0) == 0
    }

    /// A pointer from each record makes a chain file; one from the root (`$/pharmacy`) names the one pharmacy of the document.
    public var pharmacyPerRecord: Bool {
        if case .column(let pointer) = mapping.pharmacyID { return !pointer.hasPrefix("$") }
        return false
    }

    public func readHeader(_ file: FeedFile) throws(FeedFailure) -> StockFeedHeader {
        let reader = MappedJSONReader(adapter: self, file: file.name, exportTime: mapping.exportTime(of: file), headerOnly: true)
        reader.run(file)
        guard let header = reader.records.header else {
            throw reader.records.headerProblem ?? reader.output.failure
                ?? FeedFailure(reason: .badHeader, message: "no record to take the pharmacy and export date from")
        }
        return header
    }

    public func split(_ file: FeedFile, into router: ChainRouter) -> FeedOutput<StockOffer> {
        let reader = MappedJSONReader(adapter: self, file: file.name, exportTime: mapping.exportTime(of: file), headerOnly: false, router: router)
        reader.run(file)
        return reader.output
    }

    public func parse(_ file: FeedFile, into output: inout FeedOutput<StockOffer>) -> StockFeedHeader? {
        parse(file, into: &output, rows: nil)
    }

    /// `rows` set: a registry or register mapping's records go there (`MappedRows`).
    func parse(_ file: FeedFile, into output: inout FeedOutput<StockOffer>, rows: ((Int, MappedRecordReader) -> Void)?) -> StockFeedHeader? {
        let reader = MappedJSONReader(adapter: self, file: file.name, exportTime: mapping.exportTime(of: file), headerOnly: false)
        reader.records.rowSink = rows
        reader.output = output
        reader.run(file)
        if reader.output.failure == nil, let problem = reader.records.headerProblem { reader.output.failure = problem }
        if reader.output.failure == nil, reader.records.header == nil {
            reader.output.failure = FeedFailure(reason: .badHeader, message: "the feed has no records\(recordPointer.map { " at \($0.isEmpty ? "the root" : $0)" } ?? "")")
        }
        output = reader.output
        return reader.records.header
    }
}

/// The streaming state for one mapped JSON document (or one JSON Lines file):
/// where in the pointer tree each open container stands, and the current
/// record's values.
final class MappedJSONReader: JSONStreamHandler {
    let adapter: MappedJSONStockAdapter
    let headerOnly: Bool
    var output: FeedOutput<StockOffer>
    let records: MappedRecordReader
    private let tree: JSONPointerTree

    /// One open object or array.
    private struct Frame {
        var isArray: Bool
        /// The next element's index, in an array.
        var nextIndex = 0
        /// Where it stands in the tree; nil when no mapped pointer goes through it.
        var node: Int?
        var holdsRecords = false
        var isRecord = false
    }

    private var frames: [Frame] = []
    /// The key the next value in an object goes under (built only where the tree goes on).
    private var pendingKey: String?
    /// The record being read: 1-based, the `line` of its rejects.
    private var recordIndex = 0
    private var inRecord = false
    /// This record's values by mapped pointer, and those outside the records.
    private var values: [String: String] = [:]
    private var outerValues: [String: String] = [:]
    /// Mapped pointers that reached an object or array: the record is `not_a_value`.
    private var containers: [String: String] = [:]
    private var outerContainers: [String: String] = [:]
    /// A record that is a string or number, not an object or array.
    private var scalarRecord: String?
    /// JSON Lines: each line's value is a record.
    private let linesAreRecords: Bool
    /// The document's own fault (its records pointer reaches an object).
    private var documentFault: FeedFailure?
    private var headerSeen = false
    /// Each mapped field with the pointers it reads (several when joined),
    /// in `CanonicalField.allCases` order; worked out once, not looked up in
    /// the mapping's dictionaries per record (four look-ups per field a
    /// record, half of a JSON record's instructions in `make bench-instructions`).
    private let sources: [(field: CanonicalField, columns: [String], joined: Bool)]

    init(adapter: MappedJSONStockAdapter, file: String, exportTime: ExportTimestamp?, headerOnly: Bool, router: ChainRouter? = nil) {
        self.adapter = adapter
        self.headerOnly = headerOnly
        self.output = FeedOutput(file: file)
        self.records = MappedRecordReader(mapping: adapter.mapping, fileName: file, exportTime: exportTime, router: router)
        self.linesAreRecords = adapter.recordPointer == nil
        self.tree = JSONPointerTree(columns: adapter.mapping.readColumns, recordPointer: adapter.recordPointer)
        let mapping = adapter.mapping
        self.sources = CanonicalField.allCases.compactMap { field in
            if let parts = mapping.joinedColumns[field] { return (field, parts, true) }
            return mapping.columns[field].map { (field, [$0], false) }
        }
    }

    /// Reads the whole file; every failure ends in `output`.
    func run(_ file: FeedFile) {
        let parser = StreamingJSONParser()
        if linesAreRecords {
            runLines(file, parser: parser)
            return
        }
        do {
            try parser.parse(file, handler: self)
        } catch StreamingJSONParser.Stop.byHandler {
            if let documentFault { output.failure = documentFault }
        } catch StreamingJSONParser.Stop.malformed(let message) {
            broken(at: inRecord ? recordIndex : recordIndex + 1, message)
        } catch StreamingJSONParser.Stop.tooDeep {
            output.failure = ParseLimits.exceeded("element_depth", limit: ParseLimits.elementDepth, "JSON nested deeper than", line: max(recordIndex, 1))
        } catch let failure as FeedFailure {
            output.failure = failure
        } catch {
            output.failure = FeedFailure(reason: .unreadable, message: "\(error)")
        }
    }

    /// A break in the JSON: the records before it stand; the rest of the file
    /// is one `malformed_json` reject at the broken record's index. Before any
    /// record, the feed has nothing to stand on and fails.
    private func broken(at index: Int, _ message: String) {
        guard headerSeen else {
            output.failure = FeedFailure(reason: .malformedJSON, message: "not JSON (\(message)) before any record", line: index)
            return
        }
        output.reject(line: index, key: "", reason: .malformedJSON,
                      message: "the JSON breaks in record \(index) (\(message)); the rest of the file is not read", field: "record")
    }

    /// JSON Lines: each line its own document, so one broken line is one reject and the next line reads on.
    private func runLines(_ file: FeedFile, parser: StreamingJSONParser) {
        do {
            try LineReader(file: file).forEachLine { line, number in
                switch line {
                case .tooLong(let bytes):
                    output.reject(line: number, key: "", reason: .lineTooLong, message: "line is \(bytes) bytes or more, over 64 KiB", field: "record")
                case .text(var bytes):
                    if number == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = UnsafeBufferPointer(rebasing: bytes[3...]) }
                    guard bytes.contains(where: { !($0 == 32 || $0 == 9 || $0 == 13) }) else { return }
                    recordIndex = number - 1
                    frames.removeAll(keepingCapacity: true)
                    inRecord = false
                    do {
                        try parser.parse(bytes, handler: self)
                    } catch StreamingJSONParser.Stop.malformed(let message) {
                        recordIndex = number
                        output.reject(line: number, key: "", reason: .malformedJSON, message: "line \(number) is not one JSON value (\(message))", field: "record")
                    } catch StreamingJSONParser.Stop.tooDeep {
                        throw ParseLimits.exceeded("element_depth", limit: ParseLimits.elementDepth, "JSON nested deeper than", line: number)
                    }
                }
            }
        } catch StreamingJSONParser.Stop.byHandler {
        } catch let failure as FeedFailure {
            output.failure = failure
        } catch {
            output.failure = FeedFailure(reason: .unreadable, message: "\(error)")
        }
    }

    // MARK: JSONStreamHandler

    /// The tree node of the value about to come, and whether it is a record.
    private func nextValue() -> (node: Int?, isRecord: Bool) {
        guard let top = frames.indices.last else {
            return linesAreRecords ? (JSONPointerTree.recordRoot, true) : (JSONPointerTree.documentRoot, false)
        }
        let index = frames[top].nextIndex
        if frames[top].isArray { frames[top].nextIndex += 1 }
        if frames[top].holdsRecords { return (JSONPointerTree.recordRoot, true) }
        guard let node = frames[top].node else { return (nil, false) }
        let token = frames[top].isArray ? String(index) : pendingKey
        return (token.flatMap { tree.child(of: node, $0) }, false)
    }

    func key(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        if let node = frames.last?.node, tree.hasChildren(node) {
            pendingKey = String(decoding: name, as: UTF8.self)
        } else {
            pendingKey = nil
        }
        return true
    }

    func scalar(_ value: JSONScalar) -> Bool {
        let (node, isRecord) = nextValue()
        if isRecord {
            beginRecord()
            scalarRecord = Self.kind(value)
            return endRecord()
        }
        guard let node, !tree.nodes[node].mapped.isEmpty else { return true }
        let text: String?
        switch value {
        case .null: text = nil
        case .bool(let flag): text = flag ? "true" : "false"
        case .number(let bytes): text = Self.plainDecimal(String(decoding: bytes, as: UTF8.self))
        case .string(let bytes): text = String(decoding: bytes, as: UTF8.self)
        }
        for mapped in tree.nodes[node].mapped {
            if inRecord { values[mapped] = text } else { outerValues[mapped] = text }
        }
        return true
    }

    func startContainer(isArray: Bool) -> Bool {
        let (node, isRecord) = nextValue()
        var frame = Frame(isArray: isArray, node: node)
        if isRecord {
            beginRecord()
            frame.isRecord = true
        } else if let node {
            for mapped in tree.nodes[node].mapped {
                if inRecord { containers[mapped] = isArray ? "an array" : "an object" } else { outerContainers[mapped] = isArray ? "an array" : "an object" }
            }
            if tree.nodes[node].isRecords {
                guard isArray else {
                    documentFault = FeedFailure(reason: .badHeader, message: "the records pointer \(adapter.recordPointer ?? "") reaches an object, not an array of records")
                    return false
                }
                frame.holdsRecords = true
            }
        }
        frames.append(frame)
        return true
    }

    func endContainer() -> Bool {
        guard let frame = frames.popLast() else { return true }
        return frame.isRecord ? endRecord() : true
    }

    /// A JSON number with an exponent (`0.1E1`, `125e-2`) as the plain
    /// decimal it is exactly (`1`, `1.25`), so prices never go through a double.
    static func plainDecimal(_ number: String) -> String {
        guard let e = number.firstIndex(where: { $0 == "e" || $0 == "E" }), let exponent = Int(number[number.index(after: e)...]),
              abs(exponent) <= 40 else { return number }
        var mantissa = number[..<e]
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa = mantissa.dropFirst() }
        let point = mantissa.firstIndex(of: ".")
        let integerDigits = point.map { mantissa[..<$0].count } ?? mantissa.count
        var digits = Array(mantissa.filter { $0 != "." })
        var pointAt = integerDigits + exponent
        if pointAt <= 0 {
            digits.insert(contentsOf: repeatElement("0", count: 1 - pointAt), at: 0)
            pointAt = 1
        } else if pointAt > digits.count {
            digits.append(contentsOf: repeatElement("0", count: pointAt - digits.count))
        }
        var whole = String(digits[..<pointAt]).drop { $0 == "0" }
        if whole.isEmpty { whole = "0" }
        let fraction = String(digits[pointAt...]).reversed().drop { $0 == "0" }.reversed()
        return (negative ? "-" : "") + whole + (fraction.isEmpty ? "" : "." + String(fraction))
    }

    private static func kind(_ value: JSONScalar) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        }
    }

    private func beginRecord() {
        recordIndex += 1
        inRecord = true
        values.removeAll(keepingCapacity: true)
        containers.removeAll(keepingCapacity: true)
        scalarRecord = nil
    }

    /// The record read: its fields into the record reader. False stops the parse (header only).
    private func endRecord() -> Bool {
        inRecord = false
        let mapping = adapter.mapping
        func value(_ key: String) -> String? { values[key] ?? outerValues[key] }
        for position in records.fields.indices { records.fields[position] = nil }
        for source in sources {
            records.fields[source.field.position] = source.joined
                ? source.columns.compactMap { value($0)?.trimmed }.filter { !$0.isEmpty }.joined(separator: " ")
                : value(source.columns[0])?.trimmed
        }
        for (position, condition) in mapping.skipWhen.enumerated() { records.conditionValues[position] = value(condition.column)?.trimmed }
        headerSeen = true
        if headerOnly {
            records.establishHeader(line: recordIndex)
            return false
        }
        let key = records.value(.aptcode)?.uppercasedCode ?? ""
        if let scalarRecord {
            records.establishHeader(line: recordIndex)
            output.reject(line: recordIndex, key: key, reason: .malformedJSON, message: "record \(recordIndex) is \(scalarRecord), not an object or array", field: "record")
            return true
        }
        // A mapped pointer that reached an object or an array is a reject (most records hold none).
        for source in sources where !containers.isEmpty || !outerContainers.isEmpty {
            for column in source.columns {
                guard let shape = containers[column] ?? outerContainers[column] else { continue }
                records.establishHeader(line: recordIndex)
                records.rejectRow(line: recordIndex, reason: .notAValue, message: "\(source.field.rawValue) at \(column) is \(shape), not a value",
                                  field: source.field.rawValue, output: &output)
                return true
            }
        }
        records.read(line: recordIndex, output: &output)
        return true
    }
}
