import Foundation
import IngestCore

/// An XML stock feed read through a mapping (FEEDS.md §4): the repeating
/// record element, and for each field a path relative to it — a child's text
/// (`name`, `price/amount`) or an attribute (`@id`, `price/@amount`).
/// Streamed through the same safe SAX2 parser as Noom.
public struct MappedXMLStockAdapter: ChainFeedAdapter {
    public let mapping: StockFeedMapping
    public var name: String { mapping.adapterName }
    public var maxRejectRatePercent: Int? { mapping.maxRejectRatePercent }
    public var summary: String {
        "XML stock feed by \(mapping.file) (FEEDS.md §4), record element \(record.element)"
            + (mapping.fileNameGlob.map { "; recognised by file name \($0)" } ?? "; recognised by its record element")
    }

    public init(mapping: StockFeedMapping) {
        self.mapping = mapping
    }

    var record: (element: String, namespace: String?) {
        guard case .xml(let element, let namespace) = mapping.layout else { fatalError("not an XML mapping") }
        return (element, namespace)
    }

    public func recognises(_ file: FeedFile) -> Bool {
        guard XMLSniffer.rootElement(file.sampleWithoutBOM) != nil else { return false }
        if let glob = mapping.fileNameGlob { return fnmatch(glob, file.name, 0) == 0 }
        let sample = String(decoding: file.sample, as: UTF8.self)
        return sample.contains("<\(record.element)") || sample.contains(":\(record.element)")
    }

    public func readHeader(_ file: FeedFile) throws(FeedFailure) -> StockFeedHeader {
        let parser = StreamingXMLParser()
        let reader = MappedXMLReader(adapter: self, file: file.name, parser: parser, headerOnly: true)
        do { try parser.parse(file, handler: reader) } catch where reader.records.header != nil {}
        guard let header = reader.records.header else {
            throw reader.records.headerProblem ?? FeedFailure(reason: .badHeader, message: "no <\(record.element)> record to take the pharmacy and export date from")
        }
        return header
    }

    public var pharmacyPerRecord: Bool {
        if case .column = mapping.pharmacyID { return true }
        return false
    }

    public func split(_ file: FeedFile, into router: ChainRouter) -> FeedOutput<StockOffer> {
        let parser = StreamingXMLParser()
        let reader = MappedXMLReader(adapter: self, file: file.name, parser: parser, headerOnly: false, router: router)
        do { try parser.parse(file, handler: reader) } catch { reader.output.failure = error }
        return reader.output
    }

    public func parse(_ file: FeedFile, into output: inout FeedOutput<StockOffer>) -> StockFeedHeader? {
        let parser = StreamingXMLParser()
        let reader = MappedXMLReader(adapter: self, file: file.name, parser: parser, headerOnly: false)
        reader.output = output
        do { try parser.parse(file, handler: reader) } catch { reader.output.failure = error }
        if reader.output.failure == nil, let problem = reader.records.headerProblem { reader.output.failure = problem }
        if reader.output.failure == nil, reader.output.read == 0 {
            reader.output.failure = FeedFailure(reason: .badHeader, message: "the feed has no <\(record.element)> records")
        }
        output = reader.output
        return reader.records.header
    }
}

/// SAX2 state for one mapped XML document: inside a record, the path from
/// the record element decides which field a text or attribute fills.
final class MappedXMLReader: XMLStreamHandler {
    let adapter: MappedXMLStockAdapter
    /// A strong `let`, not unowned: no cycle outlives the parse (the parser
    /// drops its handler when it returns), and every use of an unowned
    /// reference copies out a retained one.
    let parser: StreamingXMLParser
    let headerOnly: Bool
    var output: FeedOutput<StockOffer>
    let records: MappedRecordReader

    /// Element path (relative to the record) → the mapped paths reading its text.
    private let textPaths: Set<String>
    /// Element path → (attribute, mapped path) pairs.
    private let attributePaths: [String: [(attribute: String, path: String)]]
    private var path: [String] = []
    private var inRecord = false
    private var recordLine = 0
    private var values: [String: String] = [:]
    private var capturing: String?
    /// The first mapped path of this record whose text went past
    /// `XMLTextCapture.maxBytes`: the record is rejected, never loaded cut short.
    private var tooLong: String?
    /// Fields outside the record element (`../../name`, `/root/@date`).
    private var outer: XMLOuterFields
    private var outerText = false

    init(adapter: MappedXMLStockAdapter, file: String, parser: StreamingXMLParser, headerOnly: Bool, router: ChainRouter? = nil) {
        self.adapter = adapter
        self.parser = parser
        self.headerOnly = headerOnly
        self.output = FeedOutput(file: file)
        self.records = MappedRecordReader(mapping: adapter.mapping, fileName: file, router: router)
        var textPaths = Set<String>()
        var attributePaths: [String: [(String, String)]] = [:]
        // Every path read: the fields', their joined parts', the filter's.
        let paths = adapter.mapping.readColumns
        outer = XMLOuterFields(mappedPaths: paths)
        for path in paths where XMLOuterFields.parse(path) == nil {
            let parts = path.split(separator: "/").map(String.init)
            if let last = parts.last, last.hasPrefix("@") {
                attributePaths[parts.dropLast().joined(separator: "/"), default: []].append((String(last.dropFirst()), path))
            } else {
                textPaths.insert(parts.joined(separator: "/"))
            }
        }
        self.textPaths = textPaths
        self.attributePaths = attributePaths
    }

    func startElement(_ name: XMLName, attributes: XMLAttributes, line: Int) {
        if !inRecord {
            guard name.localName == adapter.record.element, name.inNamespace(adapter.record.namespace) else {
                if !outer.isEmpty, outer.open(name.localName, attributes: attributes) {
                    parser.text.begin()
                    outerText = true
                }
                return
            }
            if outerText {
                parser.text.end()
                outerText = false
                outer.cancelCapture()
            }
            inRecord = true
            recordLine = line
            tooLong = nil
            values.removeAll(keepingCapacity: true)
            path = []
            collect(attributes, at: "")
            return
        }
        path.append(name.localName)
        let key = path.joined(separator: "/")
        collect(attributes, at: key)
        if textPaths.contains(key) {
            capturing = key
            parser.text.begin()
        }
    }

    private func collect(_ attributes: XMLAttributes, at key: String) {
        for (attribute, mapped) in attributePaths[key] ?? [] {
            if let value = attributes.value(named: attribute) { values[mapped] = value }
        }
    }

    func endElement(_ name: XMLName) {
        guard inRecord else {
            guard !outer.isEmpty else { return }
            var text: String?
            if outerText, outer.closingCapturedElement {
                parser.text.end()
                outerText = false
                text = parser.text.string.trimmed
            }
            outer.close(text: text)
            return
        }
        if path.isEmpty {
            inRecord = false
            for (mapped, value) in outer.values() { values[mapped] = value }
            let mapping = adapter.mapping
            for field in CanonicalField.allCases {
                if let parts = mapping.joinedColumns[field] {
                    // Several paths: joined with one space, empty parts left out.
                    records.fields[field.position] = parts.compactMap { values[$0]?.trimmed }.filter { !$0.isEmpty }.joined(separator: " ")
                } else {
                    records.fields[field.position] = mapping.columns[field].flatMap { values[$0] }?.trimmed
                }
            }
            for (position, condition) in mapping.skipWhen.enumerated() { records.conditionValues[position] = values[condition.column]?.trimmed }
            if headerOnly {
                records.establishHeader(line: recordLine)
                parser.stop()
            } else if let field = tooLong {
                records.establishHeader(line: recordLine)
                output.reject(line: recordLine, key: records.value(.aptcode)?.uppercasedCode ?? "", reason: .lineTooLong,
                              message: "\(field) is longer than \(XMLTextCapture.maxBytes) bytes", field: field)
            } else {
                records.read(line: recordLine, output: &output)
            }
            return
        }
        let key = path.joined(separator: "/")
        if capturing == key {
            parser.text.end()
            values[key] = parser.text.string
            if parser.text.overflowed, tooLong == nil { tooLong = key }
            capturing = nil
        }
        path.removeLast()
    }
}
