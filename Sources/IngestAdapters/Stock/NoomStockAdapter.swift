import CLibXML2
import Foundation
import IngestCore

/// Noom stock exports (FEEDS.md §2): XML in namespace `urn:noom:stock:2`,
/// hundreds of MB, streamed through libxml2's SAX2 parser in flat memory.
///
/// Prices arrive without VAT; the shelf price is net × (1 + rate/100),
/// rounded half-up once. Unknown elements, attributes and namespaces are
/// ignored so newer Noom versions still load. The `summary/@itemCount`
/// check is what tells a complete export from a truncated one.
public struct NoomStockAdapter: StockFeedAdapter {
    public let name = "noom"
    public let summary = "Noom stock export (FEEDS.md §2), XML; recognised by root element stockExport in namespace urn:noom:stock:2"
    public static let namespace: StaticString = "urn:noom:stock:2"

    public init() {}

    public func recognises(_ file: FeedFile) -> Bool {
        XMLSniffer.rootIs("stockExport", namespace: "\(Self.namespace)", in: file.sampleWithoutBOM)
    }

    public func readHeader(_ file: FeedFile) throws(FeedFailure) -> StockFeedHeader {
        let parser = StreamingXMLParser()
        let reader = NoomReader(file: file.name, parser: parser, headerOnly: true)
        do {
            try parser.parse(file, handler: reader)
        } catch where reader.header != nil {
            // The header was complete before the document went wrong; the full parse reports it.
        }
        guard let header = reader.header else {
            throw reader.headerProblem ?? FeedFailure(reason: .badHeader, message: "no <pharmacy id> in the document")
        }
        return header
    }

    public func parse(_ file: FeedFile, into output: inout FeedOutput<StockOffer>) -> StockFeedHeader? {
        let parser = StreamingXMLParser()
        let reader = NoomReader(file: file.name, parser: parser, headerOnly: false)
        reader.output = output
        do {
            try parser.parse(file, handler: reader)
            reader.finish()
        } catch {
            reader.output.failure = error
        }
        if reader.output.failure == nil, let problem = reader.headerProblem { reader.output.failure = problem }
        output = reader.output
        return reader.header
    }
}

/// The SAX2 state machine for one Noom document.
final class NoomReader: XMLStreamHandler {
    private static let ns: StaticString = NoomStockAdapter.namespace
    static let fieldNames = StockFieldRules.FieldNames(packageCode: "packageCode", producer: "producer", activeSubstance: "substance")

    let file: String
    /// A strong `let`, not unowned: no cycle outlives the parse (the parser
    /// drops its handler when it returns), and every use of an unowned
    /// reference copies out a retained one.
    let parser: StreamingXMLParser
    let headerOnly: Bool
    var output: FeedOutput<StockOffer>

    var header: StockFeedHeader?
    var headerProblem: FeedFailure?
    private var generated: ExportTimestamp?
    private var pharmacyID: String?
    private var chainID: String?
    private var currency: Currency = .eur
    private var summaryCount: String?
    /// The last start tag's line: where a truncated document ends.
    private var lastLine = 0
    private var summaryLine = 0
    private var items = 0

    private enum Field { case gtin, name, producer, atc, substance, stock, pharmacyName }
    private var field: Field?
    /// Depth inside elements this reader does not know (other namespaces, newer fields).
    private var unknownDepth = 0
    private var depth = 0
    private var item: PendingItem?

    private struct PendingItem {
        var line: Int
        var aptcode: String?
        var packageCode: String?
        var gtin: String?
        var name: String?
        var producer: String?
        var atc: String?
        var substance: String?
        var net: String?
        var vatRate: String?
        var stock: String?
        var tooLong: String?
    }

    init(file: String, parser: StreamingXMLParser, headerOnly: Bool) {
        self.file = file
        self.parser = parser
        self.headerOnly = headerOnly
        self.output = FeedOutput(file: file)
    }

    /// libxml2 interns namespace URIs per parser: once the Noom URI has been
    /// seen, a pointer comparison answers for every later element.
    private var noomURI: UnsafePointer<xmlChar>?

    @inline(__always)
    private func inNoom(_ name: XMLName) -> Bool {
        guard let uri = name.uri else { return false }
        if uri == noomURI { return true }
        guard name.inNoom else { return false }
        noomURI = uri
        return true
    }

    func startElement(_ name: XMLName, attributes: XMLAttributes, line: Int) {
        depth += 1
        lastLine = line
        if unknownDepth > 0 { unknownDepth += 1; return }
        guard inNoom(name) else { return skipSubtree() } // another namespace
        if item != nil {
            switch true {
            case name.is("gtin"): beginText(.gtin)
            case name.is("name"): beginText(.name)
            case name.is("producer"): beginText(.producer)
            case name.is("atc"): beginText(.atc)
            case name.is("substance"): beginText(.substance)
            case name.is("stock"): beginText(.stock)
            case name.is("price"):
                item?.net = attributes.value("net")
                item?.vatRate = attributes.value("vatRate")
            default: skipSubtree()
            }
            return
        }
        switch true {
        case name.is("item"):
            item = PendingItem(line: line, aptcode: attributes.value("aptcode"), packageCode: attributes.value("packageCode"))
        case name.is("stockExport"):
            if let value = attributes.value("generated") {
                generated = ExportTimestamp.parseISO8601(value)
                if generated == nil {
                    headerProblem = FeedFailure(reason: .badHeader, message: "generated='\(value)' is not an ISO 8601 time", line: line)
                }
            } else {
                headerProblem = FeedFailure(reason: .badHeader, message: "stockExport has no generated attribute", line: line)
            }
        case name.is("pharmacy"):
            pharmacyID = attributes.value("id")?.trimmed
            chainID = attributes.value("chain")
            beginText(.pharmacyName)
        case name.is("items"):
            if let code = attributes.value("currency") {
                if let known = Currency(code: code) {
                    currency = known
                } else {
                    headerProblem = FeedFailure(reason: .unsupportedCurrency, message: "currency '\(code)' is not EUR, EEK, LVL or LTL", line: line)
                }
            }
        case name.is("summary"):
            summaryCount = attributes.value("itemCount") ?? ""
            summaryLine = line
        default:
            if depth > 1 { skipSubtree() }
        }
    }

    private func beginText(_ field: Field) {
        self.field = field
        parser.text.begin()
    }

    /// An element this reader does not know: its subtree, text included, is ignored.
    private func skipSubtree() {
        unknownDepth = 1
        parser.text.isActive = false
    }

    func endElement(_ name: XMLName) {
        depth -= 1
        if unknownDepth > 0 {
            unknownDepth -= 1
            if unknownDepth == 0, field != nil { parser.text.isActive = true }
            return
        }
        if let field {
            parser.text.end()
            let value = parser.text.trimmedString
            if parser.text.overflowed { item?.tooLong = "\(field)" }
            switch field {
            case .gtin: item?.gtin = value
            case .name: item?.name = value
            case .producer: item?.producer = value
            case .atc: item?.atc = value
            case .substance: item?.substance = value
            case .stock: item?.stock = value
            case .pharmacyName: completeHeader(name: value)
            }
            self.field = nil
            return
        }
        // take() moves the item out: a copy of its eleven fields, then two
        // releases of them, cost more than reading the record (callgrind).
        if name.is("item"), let pending = item.take() {
            items += 1
            if !headerOnly { read(pending) }
        }
    }

    private func completeHeader(name: String) {
        guard let pharmacyID, !pharmacyID.isEmpty else {
            headerProblem = headerProblem ?? FeedFailure(reason: .badHeader, message: "<pharmacy> has no id", line: parser.currentLine)
            if headerOnly { parser.stop() }
            return
        }
        if let generated, headerProblem == nil {
            header = StockFeedHeader(pharmacyID: pharmacyID, pharmacyName: name.isEmpty ? nil : name,
                                     chainID: chainID, exportedAt: generated, format: "Noom")
        }
        if headerOnly { parser.stop() }
    }

    func finish() {
        guard let summaryCount else {
            output.failure = FeedFailure(reason: .summaryMismatch, message: "no <summary itemCount>: the file is truncated", line: lastLine)
            return
        }
        if summaryCount != String(items) {
            output.failure = FeedFailure(reason: .summaryMismatch, message: "summary says itemCount=\(summaryCount), the file has \(items) items", line: summaryLine)
        }
    }

    private func read(_ item: PendingItem) {
        let aptcode = (item.aptcode ?? "").trimmed.uppercasedCode
        func reject(_ reason: RejectReason, _ field: String, _ message: String) {
            output.reject(line: item.line, key: aptcode, reason: reason, message: message, field: field)
        }
        if let field = item.tooLong { return reject(.lineTooLong, field, "\(field) is longer than \(XMLTextCapture.maxBytes) bytes") }
        guard !aptcode.isEmpty else { return reject(.missingField, "aptcode", "item has no aptcode attribute") }
        let description: StockFieldRules.Description
        do {
            description = try StockFieldRules.description(
                packageCode: item.packageCode, gtin: item.gtin, name: item.name, producer: item.producer,
                activeSubstance: item.substance, fields: Self.fieldNames)
        } catch {
            return output.reject(error, line: item.line, key: aptcode)
        }
        guard let netText = item.net, let net = ExactDecimal.parse(netText, decimalSeparator: ".", maxFractionDigits: 6),
              let vatText = item.vatRate, let vat = ExactDecimal.parse(vatText, decimalSeparator: ".", maxFractionDigits: 4) else {
            return reject(.badPrice, "price", "price net='\(item.net ?? "")' vatRate='\(item.vatRate ?? "")' is not two decimal-point numbers")
        }
        let cents: Int64
        do { cents = try Money.shelfCents(net: net, vatPercent: vat, in: currency) } catch {
            return reject(.badPrice, "price", "price net='\(netText)' vatRate='\(vatText)' is out of range")
        }
        let stock: Int64
        do { stock = try StockFieldRules.quantity(item.stock, field: "stock") } catch {
            return output.reject(error, line: item.line, key: aptcode)
        }
        guard output.isFirstOccurrence(aptcode) else { return output.reject(StockFieldRules.duplicate(aptcode), line: item.line, key: aptcode) }
        output.warnIfRestricted(description.gtin, line: item.line, key: aptcode)
        func optional(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        output.accept(StockOffer(
            aptcode: aptcode, packageCode: description.packageCode, gtin: description.gtin?.gtin, name: description.name, producer: optional(item.producer),
            atc: optional(item.atc)?.uppercasedCode, activeSubstance: optional(item.substance),
            priceCents: cents, quantity: stock, line: item.line))
    }
}

extension XMLName {
    fileprivate var inNoom: Bool {
        guard let uri else { return false }
        return strcmp(UnsafeRawPointer(uri).assumingMemoryBound(to: CChar.self),
                      UnsafeRawPointer(NoomStockAdapter.namespace.utf8Start).assumingMemoryBound(to: CChar.self)) == 0
    }
}

extension RejectReason {
    public static let summaryMismatch = RejectReason(rawValue: "summary_mismatch")
}
