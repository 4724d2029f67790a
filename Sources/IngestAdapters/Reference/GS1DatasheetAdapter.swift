import Foundation
import IngestCore

/// GS1 trade item datasheets (FEEDS.md §10). Each `tradeItem` is a record;
/// the hierarchy rules need every item of the file, so items are checked
/// after the whole file is read: a CASE or PALLET needs children, a base
/// unit has none, quantities are positive, and no item contains itself.
public struct GS1DatasheetAdapter: FeedAdapter {
    public let name = "gs1-datasheet"
    public let summary = "GS1 trade item datasheets (FEEDS.md §10), XML; recognised by root element tradeItemDatasheet in namespace urn:gs1:datasheet:1"
    public let kind = FeedKind.gs1
    static let namespace: StaticString = "urn:gs1:datasheet:1"
    static let descriptors: Set<String> = ["BASE_UNIT_OR_EACH", "CASE", "PALLET"]

    public init() {}

    public func recognises(_ file: FeedFile) -> Bool {
        XMLSniffer.rootIs("tradeItemDatasheet", namespace: "\(Self.namespace)", in: file.sampleWithoutBOM)
    }

    public func parse(_ file: FeedFile, into output: inout FeedOutput<GS1TradeItem>) -> NoHeader? {
        let parser = StreamingXMLParser()
        let reader = GS1Reader(parser: parser)
        do {
            try parser.parse(file, handler: reader)
        } catch {
            output.failure = error
        }
        check(reader.items, into: &output)
        if output.failure != nil { output = output.rejectingAll() }
        return nil
    }

    private enum Verdict { case accepted(GS1TradeItem), rejected(RejectReason, String, String) }

    private func check(_ items: [GS1Reader.Pending], into output: inout FeedOutput<GS1TradeItem>) {
        var verdicts: [Verdict] = []
        var byGTIN: [String: GS1TradeItem] = [:]
        for item in items {
            let verdict = validate(item)
            if case .accepted(let trade) = verdict {
                if byGTIN[trade.gtin] != nil {
                    verdicts.append(.rejected(.duplicateKey, "gtin", "GTIN \(trade.gtin) has an earlier datasheet in this file"))
                    continue
                }
                byGTIN[trade.gtin] = trade
            }
            verdicts.append(verdict)
        }
        // Items that contain themselves at any depth are rejected.
        let cyclic = Self.itemsInCycles(byGTIN)
        for (item, verdict) in zip(items, verdicts) {
            switch verdict {
            case .accepted(let trade) where cyclic.contains(trade.gtin):
                output.reject(line: item.line, key: trade.gtin, reason: .badHierarchy,
                              message: "GTIN \(trade.gtin) contains itself through its children", field: "child")
            case .accepted(let trade):
                if let raw = item.descriptions.first(where: { $0.lang == "et" })?.text ?? item.descriptions.first?.text,
                   let problem = TextHygiene.problem(in: raw) {
                    output.warn(line: item.line, key: trade.gtin, code: .foldedText, message: "description had \(problem), folded to one space")
                }
                if trade.gtin.isEmpty == false, GTIN.isRestricted(trade.gtin) {
                    output.warn(line: item.line, key: trade.gtin, code: .restrictedGTIN, message: "GTIN \(trade.gtin) is not globally unique")
                }
                for child in trade.children where byGTIN[child.gtin] == nil {
                    output.warn(line: item.line, key: trade.gtin, code: .unknownChildGTIN, message: "child GTIN \(child.gtin) has no datasheet in this file")
                }
                output.accept(trade)
            case .rejected(let reason, let field, let message):
                output.reject(line: item.line, key: item.gtin, reason: reason, message: message, field: field)
            }
        }
    }

    private func validate(_ item: GS1Reader.Pending) -> Verdict {
        if let field = item.tooLong {
            return .rejected(.lineTooLong, field, "\(field) is longer than \(XMLTextCapture.maxBytes) bytes")
        }
        // FEEDS.md §12's text hygiene, as for every reference file: codes and the brand name are rejected, descriptions folded.
        for (field, text) in [("gtin", item.gtin), ("unitDescriptor", item.unitDescriptor), ("brandName", item.brand ?? ""),
                              ("netContent", item.netContent ?? "")] {
            if let problem = TextHygiene.problem(in: text, longest: field == "brandName" ? TextHygiene.longestName : nil) {
                return .rejected(.badText, field, "\(field) has \(problem)")
            }
        }
        let gtin: String
        switch GTIN.normalize(item.gtin) {
        case .success(let normalized): gtin = normalized
        case .failure(.badShape): return .rejected(.badGTIN, "gtin", "GTIN '\(item.gtin)' is not 8, 12, 13 or 14 digits")
        case .failure(.badCheckDigit): return .rejected(.badGTINCheckDigit, "gtin", "GTIN '\(item.gtin)' fails its check digit")
        }
        if let url = item.imageURL, !WebURL.isValid(url) {
            return .rejected(.badURL, "imageUrl", "image URL '\(url)' is not an http or https URL")
        }
        guard Self.descriptors.contains(item.unitDescriptor) else {
            return .rejected(.badHierarchy, "unitDescriptor", "unit descriptor '\(item.unitDescriptor)' is not BASE_UNIT_OR_EACH, CASE or PALLET")
        }
        var children: [GS1TradeItem.Child] = []
        for child in item.children {
            switch GTIN.normalize(child.gtin) {
            case .success(let normalized):
                guard let quantity = Int64(child.quantity.trimmed), quantity > 0 else {
                    return .rejected(.badHierarchy, "child.quantity", "child \(normalized) has quantity '\(child.quantity)', not a positive integer")
                }
                children.append(.init(gtin: normalized, quantity: quantity))
            case .failure(.badShape): return .rejected(.badGTIN, "child.gtin", "child GTIN '\(child.gtin)' is not 8, 12, 13 or 14 digits")
            case .failure(.badCheckDigit): return .rejected(.badGTINCheckDigit, "child.gtin", "child GTIN '\(child.gtin)' fails its check digit")
            }
        }
        if item.unitDescriptor == "BASE_UNIT_OR_EACH", !children.isEmpty {
            return .rejected(.badHierarchy, "child", "a base unit has no children, this one lists \(children.count)")
        }
        if item.unitDescriptor != "BASE_UNIT_OR_EACH", children.isEmpty {
            return .rejected(.badHierarchy, "child", "a \(item.unitDescriptor) must list its children")
        }
        let description = (item.descriptions.first { $0.lang == "et" }?.text ?? item.descriptions.first?.text).map { TextHygiene.problem(in: $0) == nil ? $0 : ReferenceTextHygiene.folded($0) }
        var trade = GS1TradeItem(gtin: gtin, unitDescriptor: item.unitDescriptor, brand: item.brand, description: description,
                                 netContent: item.netContent, imageURL: item.imageURL, children: children, line: item.line)
        for result in item.results {
            switch result {
            case "0": trade.checksUnable += 1
            case "1": trade.checksPassed += 1
            case "2": trade.checksWarning += 1
            case "3": trade.checksFailed += 1
            default: break
            }
        }
        return .accepted(trade)
    }

    static func itemsInCycles(_ items: [String: GS1TradeItem]) -> Set<String> {
        var state: [String: Int] = [:] // 1 visiting, 2 done
        var cyclic = Set<String>()
        func visit(_ gtin: String, _ path: [String]) {
            if state[gtin] == 2 { return }
            if state[gtin] == 1 {
                if let start = path.firstIndex(of: gtin) { cyclic.formUnion(path[start...]) }
                return
            }
            state[gtin] = 1
            for child in items[gtin]?.children ?? [] where items[child.gtin] != nil {
                visit(child.gtin, path + [gtin])
            }
            state[gtin] = 2
        }
        for gtin in items.keys.sorted() { visit(gtin, []) }
        return cyclic
    }
}

/// SAX2 state for a datasheet file: collects each trade item's fields.
final class GS1Reader: XMLStreamHandler {
    struct Pending {
        var line: Int
        var gtin = ""
        var unitDescriptor = ""
        var brand: String?
        var descriptions: [(lang: String, text: String)] = []
        var netContent: String?
        var imageURL: String?
        var children: [(gtin: String, quantity: String)] = []
        var results: [String] = []
        /// The first element whose text went past `XMLTextCapture.maxBytes`:
        /// the datasheet is rejected, never kept cut short.
        var tooLong: String?
    }

    private(set) var items: [Pending] = []
    private var item: Pending?
    private var depth = 0
    private var capturing: String?
    private var language = ""
    /// A strong `let`, not unowned: no cycle outlives the parse (the parser
    /// drops its handler when it returns), and every use of an unowned
    /// reference copies out a retained one.
    let parser: StreamingXMLParser

    init(parser: StreamingXMLParser) {
        self.parser = parser
    }

    func startElement(_ name: XMLName, attributes: XMLAttributes, line: Int) {
        depth += 1
        guard name.is("tradeItem", in: GS1DatasheetAdapter.namespace) || item != nil else { return }
        if name.is("tradeItem") {
            item = Pending(line: line)
            depth = 0
            return
        }
        guard depth == 1 || name.is("attribute") else { return } // direct children of tradeItem, and inspection results
        switch true {
        case name.is("gtin"), name.is("unitDescriptor"), name.is("brandName"), name.is("netContent"), name.is("imageUrl"):
            capturing = name.localName
            parser.text.begin()
        case name.is("description"):
            capturing = "description"
            language = attributes.value("lang") ?? ""
            parser.text.begin()
        case name.is("child"):
            item?.children.append((attributes.value("gtin") ?? "", attributes.value("quantity") ?? ""))
        case name.is("attribute"):
            item?.results.append(attributes.value("result")?.trimmed ?? "")
        default:
            break
        }
    }

    func endElement(_ name: XMLName) {
        defer { depth -= 1 }
        guard item != nil else { return }
        if let field = capturing {
            parser.text.end()
            let value = parser.text.trimmedString
            capturing = nil
            if parser.text.overflowed, item?.tooLong == nil { item?.tooLong = field }
            switch field {
            case "gtin": item?.gtin = value
            case "unitDescriptor": item?.unitDescriptor = value
            case "brandName": item?.brand = value.isEmpty ? nil : value
            case "netContent": item?.netContent = value.isEmpty ? nil : value
            case "imageUrl": item?.imageURL = value.isEmpty ? nil : value
            case "description": item?.descriptions.append((language, value))
            default: break
            }
            return
        }
        if depth == 0, name.is("tradeItem"), let finished = item {
            items.append(finished)
            item = nil
        }
    }
}
