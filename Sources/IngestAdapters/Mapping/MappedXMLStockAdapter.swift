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
    public var exportTimeInContent: Bool { mapping.exportTimeInContent }
    public var summary: String {
        "XML stock feed by \(mapping.file) (FEEDS.md §4), record element \(record.element)"
            + (mapping.fileNameGlob.map { "; recognised by file name \($0)" } ?? "; recognised by its record element")
    }

    /// The repeating record element, from the mapping's XML layout.
    let record: (element: String, namespace: String?)

    init(mapping: StockFeedMapping, record: (element: String, namespace: String?)) {
        self.mapping = mapping
        self.record = record
    }

    /// nil for a mapping of another layout (`MappedStockReader` picks the adapter a layout calls for).
    public init?(mapping: StockFeedMapping) {
        guard case .xml(let adapter) = MappedStockReader(mapping) else { return nil }
        self = adapter
    }

    public func recognises(_ file: FeedFile) -> Bool {
        guard XMLSniffer.rootElement(file.sampleWithoutBOM) != nil else { return false }
        if let glob = mapping.fileNameGlob { return fnmatch(glob, file.name, 0) == 0 }
        let sample = String(decoding: file.sample, as: UTF8.self)
        return sample.contains("<\(record.element)") || sample.contains(":\(record.element)")
    }

    public func readHeader(_ file: FeedFile) throws(FeedFailure) -> StockFeedHeader {
        let parser = StreamingXMLParser()
        let reader = MappedXMLReader(adapter: self, file: file.name, exportTime: mapping.exportTime(of: file), parser: parser, headerOnly: true)
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
        let reader = MappedXMLReader(adapter: self, file: file.name, exportTime: mapping.exportTime(of: file), parser: parser, headerOnly: false, router: router)
        do { try parser.parse(file, handler: reader) } catch { reader.output.failure = error }
        return reader.output
    }

    public func parse(_ file: FeedFile, into output: inout FeedOutput<StockOffer>) -> StockFeedHeader? {
        parse(file, into: &output, rows: nil)
    }

    /// `rows` set: a registry or register mapping's records go there (`MappedRows`).
    func parse(_ file: FeedFile, into output: inout FeedOutput<StockOffer>, rows: ((Int, MappedRecordReader) -> Void)?) -> StockFeedHeader? {
        let parser = StreamingXMLParser()
        let reader = MappedXMLReader(adapter: self, file: file.name, exportTime: mapping.exportTime(of: file), parser: parser, headerOnly: false)
        reader.records.rowSink = rows
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

/// SAX2 state for one mapped XML document (FEEDS.md §4, §12). Every open
/// element is a frame holding what the mapping's paths may ask of it: the
/// attributes they name, its place among same-named siblings, the texts of
/// the children a predicate tests, and the values of paths that start from
/// it (an ancestor of a record to come). A path's value is taken when its
/// element closes (an attribute: when it opens); a step whose predicate
/// tests a child is decided when that step's element closes.
final class MappedXMLReader: XMLStreamHandler {
    let adapter: MappedXMLStockAdapter
    /// A strong `let`, not unowned: no cycle outlives the parse (the parser
    /// drops its handler when it returns), and every use of an unowned
    /// reference copies out a retained one.
    let parser: StreamingXMLParser
    let headerOnly: Bool
    var output: FeedOutput<StockOffer>
    let records: MappedRecordReader

    /// A value a path reached: text, or an element with children (`not_a_value`).
    private enum Held {
        case text(String)
        case container
    }

    /// A path's value waiting for the predicates on `levels` (depths, innermost last) to be decided.
    private struct Pending {
        var path: Int
        var value: Held
        var levels: [Int]
        var anchorDepth: Int
    }

    private struct Frame {
        var name: String
        var attributes: [String: String] = [:]
        /// 1-based among its parent's children of the same name.
        var position = 1
        var childCounts: [String: Int] = [:]
        /// The first text of each child a predicate tests ("" for one with children).
        var childTexts: [String: String] = [:]
        var hasChildren = false
        /// Values of outer paths anchored here, by path index: the nearest wins.
        var held: [Int: Held] = [:]
        var pending: [Pending] = []
    }

    private let paths: [XMLMappedPath]
    /// Attribute names any path or predicate reads; element names whose text is wanted.
    private let attributeNames: [String]
    private let textNames: Set<String>
    private let predicateChildren: Set<String>
    /// Paths by the name of the element (or attribute owner) they end on.
    private let pathsByLastName: [String: [Int]]
    private var frames: [Frame] = []
    /// The depth of the element whose text the parser's capture holds.
    private var capturingDepth: Int?
    private var recordDepth: Int?
    private var recordLine = 0
    /// The record's values by mapped path; containers reached are `not_a_value`.
    private var values: [String: Held] = [:]
    /// The first mapped path of this record whose text went past
    /// `XMLTextCapture.maxBytes`: the record is rejected, never loaded cut short.
    private var tooLong: String?

    init(adapter: MappedXMLStockAdapter, file: String, exportTime: ExportTimestamp?, parser: StreamingXMLParser, headerOnly: Bool, router: ChainRouter? = nil) {
        self.adapter = adapter
        self.parser = parser
        self.headerOnly = headerOnly
        self.output = FeedOutput(file: file)
        self.records = MappedRecordReader(mapping: adapter.mapping, fileName: file, exportTime: exportTime, router: router)
        // The loader refused every path that does not parse.
        let paths = adapter.mapping.readColumns.sorted().compactMap { try? XMLMappedPath.parse($0) }
        self.paths = paths
        var attributes = Set<String>()
        var texts = Set<String>()
        var children = Set<String>()
        var byName: [String: [Int]] = [:]
        for (index, path) in paths.enumerated() {
            if let attribute = path.attribute { attributes.insert(attribute) } else if let last = path.steps.last { texts.insert(last.name) }
            for step in path.steps {
                switch step.predicate {
                case .hasAttribute(let name), .lacksAttribute(let name), .attributeEquals(let name, _): attributes.insert(name)
                case .hasChild(let name), .lacksChild(let name): children.insert(name)
                case .childEquals(let name, _):
                    children.insert(name)
                    texts.insert(name)
                default: break
                }
            }
            if let last = path.steps.last { byName[last.name, default: []].append(index) }
        }
        attributeNames = attributes.sorted()
        textNames = texts
        predicateChildren = children
        pathsByLastName = byName
    }

    private var inRecord: Bool { recordDepth != nil }

    func startElement(_ name: XMLName, attributes: XMLAttributes, line: Int) {
        let localName = name.localName
        if let capturing = capturingDepth {
            // An element inside the one being captured: that one holds elements, not a value.
            frames[capturing].hasChildren = true
            parser.text.end()
            capturingDepth = nil
        }
        var frame = Frame(name: localName)
        for attribute in attributeNames {
            if let value = attributes.value(named: attribute) { frame.attributes[attribute] = value }
        }
        if let parent = frames.indices.last {
            frames[parent].hasChildren = true
            let count = (frames[parent].childCounts[localName] ?? 0) + 1
            frames[parent].childCounts[localName] = count
            frame.position = count
        }
        frames.append(frame)
        let depth = frames.count - 1
        if !inRecord, localName == adapter.record.element, name.inNamespace(adapter.record.namespace) {
            beginRecord(depth: depth, line: line)
            return
        }
        // Paths ending on an attribute of this element are decided now.
        for index in pathsByLastName[localName] ?? [] {
            if let attribute = paths[index].attribute {
                if let value = frame.attributes[attribute] { matched(index, depth: depth, value: .text(value)) }
            }
        }
        if textNames.contains(localName) {
            parser.text.begin()
            capturingDepth = depth
        }
    }

    func endElement(_ name: XMLName) {
        guard let depth = frames.indices.last else { return }
        var text: String?
        if capturingDepth == depth {
            parser.text.end()
            capturingDepth = nil
            text = parser.text.string
            if parser.text.overflowed, inRecord, tooLong == nil { tooLong = frames[depth].name }
        }
        let frame = frames[depth]
        if recordDepth == depth {
            endRecord()
            frames.removeLast()
            return
        }
        let value: Held = frame.hasChildren ? .container : .text(text ?? "")
        for index in pathsByLastName[frame.name] ?? [] where paths[index].attribute == nil {
            matched(index, depth: depth, value: value)
        }
        if depth > 0, predicateChildren.contains(frame.name), frames[depth - 1].childTexts[frame.name] == nil {
            frames[depth - 1].childTexts[frame.name] = frame.hasChildren ? "" : (text ?? "").trimmed
        }
        // Values waiting on this element's child predicates.
        for var pending in frame.pending {
            let level = pending.levels.removeLast()
            let step = paths[pending.path].steps[level - pending.anchorDepth - 1]
            guard let predicate = step.predicate, Self.holds(predicate, on: frame) else { continue }
            if let next = pending.levels.last {
                frames[next].pending.append(pending)
            } else {
                commit(pending.path, anchorDepth: pending.anchorDepth, value: pending.value)
            }
        }
        frames.removeLast()
    }

    /// Path `index` may end on the element at `depth`: checked step by step
    /// up to its anchor; predicates on children wait for their element's end.
    private func matched(_ index: Int, depth: Int, value: Held) {
        let path = paths[index]
        let anchorDepth = depth - path.steps.count
        guard anchorDepth >= 0 else { return }
        switch path.anchor {
        case .record:
            guard recordDepth == anchorDepth else { return }
        case .up:
            guard !inRecord else { return } // what a record holds is never its own ancestor's
        case .root(let name):
            guard anchorDepth == 0, frames[0].name == name, !inRecord else { return }
        }
        var waiting: [Int] = []
        for (offset, step) in path.steps.enumerated() {
            let frame = frames[anchorDepth + 1 + offset]
            guard frame.name == step.name else { return }
            guard let predicate = step.predicate else { continue }
            if predicate.needsChildren {
                waiting.append(anchorDepth + 1 + offset)
            } else if !Self.holds(predicate, on: frame) {
                return
            }
        }
        if let innermost = waiting.last {
            frames[innermost].pending.append(Pending(path: index, value: value, levels: waiting, anchorDepth: anchorDepth))
        } else {
            commit(index, anchorDepth: anchorDepth, value: value)
        }
    }

    /// A path's value settled: the record's first, or the anchor's latest (the nearest before the record).
    private func commit(_ index: Int, anchorDepth: Int, value: Held) {
        let path = paths[index]
        if case .record = path.anchor {
            if values[path.mapped] == nil { values[path.mapped] = value }
        } else if anchorDepth < frames.count {
            frames[anchorDepth].held[index] = value
        }
    }

    private static func holds(_ predicate: XMLMappedPath.Predicate, on frame: Frame) -> Bool {
        switch predicate {
        case .position(let number): frame.position == number
        case .hasAttribute(let name): frame.attributes[name] != nil
        case .lacksAttribute(let name): frame.attributes[name] == nil
        case .attributeEquals(let name, let value): frame.attributes[name]?.trimmed == value
        case .hasChild(let name): frame.childTexts[name] != nil
        case .lacksChild(let name): frame.childTexts[name] == nil
        case .childEquals(let name, let value): frame.childTexts[name] == value
        }
    }

    private func beginRecord(depth: Int, line: Int) {
        recordDepth = depth
        recordLine = line
        tooLong = nil
        values.removeAll(keepingCapacity: true)
        for (index, path) in paths.enumerated() {
            switch path.anchor {
            case .record:
                if path.steps.isEmpty, let attribute = path.attribute, let value = frames[depth].attributes[attribute] {
                    values[path.mapped] = .text(value)
                }
            case .up(let levels):
                guard levels <= depth else { continue }
                let anchor = frames[depth - levels]
                if path.steps.isEmpty, let attribute = path.attribute {
                    if let value = anchor.attributes[attribute] { values[path.mapped] = .text(value) }
                } else if let held = anchor.held[index] {
                    values[path.mapped] = held
                }
            case .root(let name):
                guard frames[0].name == name else { continue }
                if path.steps.isEmpty, let attribute = path.attribute {
                    if let value = frames[0].attributes[attribute] { values[path.mapped] = .text(value) }
                } else if let held = frames[0].held[index] {
                    values[path.mapped] = held
                }
            }
        }
    }

    private func endRecord() {
        recordDepth = nil
        let mapping = adapter.mapping
        func text(_ mapped: String) -> String? {
            if case .text(let value) = values[mapped] { return value }
            return nil
        }
        for field in CanonicalField.allCases {
            if let parts = mapping.joinedColumns[field] {
                // Several paths: joined with one space, empty parts left out.
                records.fields[field.position] = parts.compactMap { text($0)?.trimmed }.filter { !$0.isEmpty }.joined(separator: " ")
            } else {
                records.fields[field.position] = mapping.columns[field].flatMap(text)?.trimmed
            }
        }
        for (position, condition) in mapping.skipWhen.enumerated() { records.conditionValues[position] = text(condition.column)?.trimmed }
        if headerOnly {
            records.establishHeader(line: recordLine)
            parser.stop()
            return
        }
        if let field = tooLong {
            records.establishHeader(line: recordLine)
            records.rejectRow(line: recordLine, reason: .lineTooLong, message: "\(field) is longer than \(XMLTextCapture.maxBytes) bytes", field: field, output: &output)
            return
        }
        for field in CanonicalField.allCases {
            for column in mapping.joinedColumns[field] ?? mapping.columns[field].map({ [$0] }) ?? [] {
                guard case .container = values[column] else { continue }
                records.establishHeader(line: recordLine)
                records.rejectRow(line: recordLine, reason: .notAValue,
                                  message: "\(field.rawValue) at \(column) is an element with child elements, not a value",
                                  field: field.rawValue, output: &output)
                return
            }
        }
        records.read(line: recordLine, output: &output)
    }
}
