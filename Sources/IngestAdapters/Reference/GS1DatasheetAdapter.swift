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
    /// UN/ECE Rec. 20 codes a datasheet writes dimensions and weights in, as millimetres and grams.
    static let millimetres: [String: Double] = ["MMT": 1, "CMT": 10, "MTR": 1000]
    static let grams: [String: Double] = ["GRM": 1, "KGM": 1000]

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
            case .accepted(let trade) where Self.higherChild(of: trade, in: byGTIN) != nil:
                let child = Self.higherChild(of: trade, in: byGTIN)!
                output.reject(line: item.line, key: trade.gtin, reason: .badHierarchy,
                              message: "a \(trade.unitDescriptor) cannot hold a \(child.unitDescriptor) (child \(child.gtin)): levels go down", field: "child")
            case .accepted(var trade):
                let gtin = trade.gtin
                measured(&trade, item) { message in output.warn(line: item.line, key: gtin, code: .badMeasure, message: message) }
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
        guard GS1TradeItem.levels.contains(item.unitDescriptor) else {
            return .rejected(.badHierarchy, "unitDescriptor",
                             "unit descriptor '\(item.unitDescriptor)' is not BASE_UNIT_OR_EACH, PACK_OR_INNER_PACK, CASE or PALLET")
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
        let descriptions = item.descriptions.map { (lang: $0.lang, text: TextHygiene.problem(in: $0.text) == nil ? $0.text : ReferenceTextHygiene.folded($0.text)) }
        var trade = GS1TradeItem(gtin: gtin, unitDescriptor: item.unitDescriptor, brand: item.brand,
                                 description: (descriptions.first { $0.lang == "et" } ?? descriptions.first)?.text,
                                 netContent: item.netContent, imageURL: item.imageURL, children: children, line: item.line)
        trade.descriptions = descriptions
        trade.netContentUnit = item.netContentUnit
        trade.providerGLN = item.providerGLN
        for result in item.results {
            guard let value = Int(result.result), (0...3).contains(value) else { continue }
            switch value {
            case 0: trade.checksUnable += 1
            case 1: trade.checksPassed += 1
            case 2: trade.checksWarning += 1
            default: trade.checksFailed += 1
            }
            // One row per attribute (the snapshot's key): a later inspection of the same attribute replaces an earlier one.
            trade.inspections.removeAll { $0.attribute == result.attribute }
            trade.inspections.append(.init(attribute: result.attribute, result: value, inspectedOn: result.date))
        }
        return .accepted(trade)
    }

    /// Dimensions and weight in millimetres and grams; a value or unit that
    /// cannot be read is left out with a warning (the rest of the datasheet
    /// stands). Then what a failed inspection (result 3) says is wrong
    /// supplies nothing (FEEDS.md §10): a failed `imageUrl` gives no image,
    /// a failed `brandName` no producer, a failed `description` no name.
    private func measured(_ trade: inout GS1TradeItem, _ item: GS1Reader.Pending, warn: (String) -> Void) {
        for (field, table) in [("height", Self.millimetres), ("width", Self.millimetres), ("depth", Self.millimetres), ("grossWeight", Self.grams)] {
            guard let measure = item.measures[field] else { continue }
            guard let value = Double(measure.value), value >= 0, value.isFinite else {
                warn("\(field) '\(measure.value)' is not a number; left out")
                continue
            }
            guard let factor = table[measure.unit] else {
                warn("\(field) unit '\(measure.unit)' is not one of \(table.keys.sorted().joined(separator: ", ")); left out")
                continue
            }
            switch field {
            case "height": trade.heightMM = value * factor
            case "width": trade.widthMM = value * factor
            case "depth": trade.depthMM = value * factor
            default: trade.grossWeightG = value * factor
            }
        }
        if let gln = trade.providerGLN, !Self.isGLN(gln) {
            warn("informationProviderGLN '\(gln)' is not a GLN (13 digits with their check digit); left out")
            trade.providerGLN = nil
        }
        for failed in trade.inspections where failed.result == GS1TradeItem.Inspection.failed {
            switch failed.attribute {
            case "imageUrl": trade.imageURL = nil
            case "brandName": trade.brand = nil
            case "description":
                trade.description = nil
                trade.descriptions = []
            case "netContent": (trade.netContent, trade.netContentUnit) = (nil, nil)
            case "height": trade.heightMM = nil
            case "width": trade.widthMM = nil
            case "depth": trade.depthMM = nil
            case "grossWeight": trade.grossWeightG = nil
            case "informationProviderGLN": trade.providerGLN = nil
            default: break
            }
        }
    }

    /// 13 digits whose check digit holds (GS1's, as a GTIN-13's).
    static func isGLN(_ text: String) -> Bool {
        guard text.count == 13, case .success = GTIN.normalize(text) else { return false }
        return true
    }

    /// A child (with a datasheet in the file) of the same or a higher level than `item`, nil when there is none.
    static func higherChild(of item: GS1TradeItem, in items: [String: GS1TradeItem]) -> GS1TradeItem? {
        guard let level = item.level else { return nil }
        return item.children.lazy.compactMap { items[$0.gtin] }.first { ($0.level ?? 0) >= level }
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
        var netContentUnit: String?
        var imageURL: String?
        var providerGLN: String?
        /// height, width, depth, grossWeight: the value and its `unit` as written.
        var measures: [String: (value: String, unit: String)] = [:]
        var children: [(gtin: String, quantity: String)] = []
        /// Each inspected attribute: its id, result and the inspection's date, as written.
        var results: [(attribute: String, result: String, date: String?)] = []
        /// The first element whose text went past `XMLTextCapture.maxBytes`:
        /// the datasheet is rejected, never kept cut short.
        var tooLong: String?
    }

    private(set) var items: [Pending] = []
    private var item: Pending?
    private var depth = 0
    private var capturing: String?
    private var language = ""
    private var unit = ""
    private var inspectionDate: String?
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
        if depth == 1, name.is("inspection") { inspectionDate = attributes.value("date")?.trimmed }
        guard depth == 1 || name.is("attribute") else { return } // direct children of tradeItem, and inspection results
        switch true {
        case name.is("gtin"), name.is("unitDescriptor"), name.is("brandName"), name.is("imageUrl"), name.is("informationProviderGLN"):
            capturing = name.localName
            parser.text.begin()
        case name.is("netContent"), name.is("height"), name.is("width"), name.is("depth"), name.is("grossWeight"):
            capturing = name.localName
            unit = attributes.value("unit")?.trimmed ?? ""
            parser.text.begin()
        case name.is("description"):
            capturing = "description"
            language = attributes.value("lang") ?? ""
            parser.text.begin()
        case name.is("child"):
            item?.children.append((attributes.value("gtin") ?? "", attributes.value("quantity") ?? ""))
        case name.is("attribute"):
            item?.results.append((attributes.value("id")?.trimmed ?? "", attributes.value("result")?.trimmed ?? "", inspectionDate))
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
            case "netContent":
                item?.netContent = value.isEmpty ? nil : value
                item?.netContentUnit = unit.isEmpty ? nil : unit
            case "height", "width", "depth", "grossWeight": if !value.isEmpty { item?.measures[field] = (value, unit) }
            case "informationProviderGLN": item?.providerGLN = value.isEmpty ? nil : value
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
