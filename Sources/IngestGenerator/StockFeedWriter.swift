import Foundation
import IngestCore

/// The stock feed formats the generator writes.
public enum GeneratedFormat: String, Sendable, CaseIterable {
    case rax, noom, csv
    /// A chain's export: many pharmacies' rows in one mapped CSV file, shuffled.
    case chain
    /// One pharmacy's export as a JSON document, read by a mapping (FEEDS.md §12).
    case json
    /// One pharmacy's export as fixed-width lines, read by a mapping (FEEDS.md §12).
    case fixed
    /// Fixed-width lines under a name without a date (`transfer_<id>.dat`),
    /// republished under that name every night: its export time is its
    /// modification time, set to the export's (FEEDS.md §12.1).
    case dateless
    /// A price list: the fixed-width lines read by a mapping that maps no
    /// quantity (`pricelist_<id>_<time>.txt`), so its offers report no
    /// stock (NULL quantity, READ_API.md's "a price list that reports none").
    case pricelist
}

/// A well-formed feed with wrong data (issue 22), for a later night whose
/// previous night was clean: what the checks against `current` must catch.
public enum WrongDataFault: String, Sendable, CaseIterable {
    /// A RAX export in kroons whose header says EUR (15.6466 × too high).
    case kroonsAsEuro = "kroons-as-euro"
    /// Every price 100 × too high.
    case decimalSlip = "decimal-slip"
    /// Another branch's stock (lines, prices, quantities) under a pharmacy's own id, exported a minute later.
    case duplicateBranch = "duplicate-branch"
    /// The item count falls from all items to one in thirty.
    case itemCountCollapse = "item-count-collapse"
    /// Every quantity zero: a warning, the feed loads.
    case zeroStock = "zero-stock"

    /// The reason the import rejects the faulty feed with; nil where it is only a warning.
    var reason: String? {
        switch self {
        case .kroonsAsEuro, .decimalSlip: return "price_shift"
        case .duplicateBranch: return "duplicate_stock"
        case .itemCountCollapse: return "item_count_drop"
        case .zeroStock: return nil
        }
    }
}

/// One pharmacy's stock, written in its format with faults injected at the
/// chosen rate; the ground truth is counted from what is actually written.
public struct StockFeedWriter: Sendable {
    enum Fault: CaseIterable {
        case badPrice, badQuantity, badPackageCode, badGTIN, badFieldCount, missingName, duplicateKey

        var reason: String {
            switch self {
            case .badPrice: return "bad_price"
            case .badQuantity: return "bad_quantity"
            case .badPackageCode: return "bad_package_code"
            case .badGTIN: return "bad_gtin_check_digit"
            case .badFieldCount: return "bad_field_count"
            case .missingName: return "missing_field"
            case .duplicateKey: return "duplicate_key"
            }
        }
    }

    /// Faults that break the whole feed.
    enum WholeFault { case truncated, unsupportedVersion, summaryMismatch, malformed, unsafe, renamedHeader, truncatedJSON }

    /// How a later night differs from the first: its export is `daysLater`
    /// days on, some prices drift, and one wrong-data fault may be injected.
    struct Night: Sendable {
        var daysLater = 0
        /// Share of lines whose price moves by up to ±30 % (a normal night's changes).
        var priceChangeRate = 0.0
        /// Share of lines whose stock level changes (it does for many items every night).
        var quantityChangeRate = 0.0
        var wrongData: WrongDataFault?
        /// For `.duplicateBranch`: the pharmacy whose lines this one copies (its export a minute later).
        var copiesIndex: Int?
    }

    let catalog: GeneratedCatalog
    let pharmacyID: String
    let pharmacyName: String
    let index: Int
    let format: GeneratedFormat
    let badRate: Double
    let wholeFault: WholeFault?
    let seed: UInt64
    var night = Night()
    /// The first night's export day (`FeedGenerator.Options.exportDay`).
    var firstDay = GeneratedDay(year: 2025, month: 11, day: 20)

    struct Line {
        var item: GeneratedCatalog.Item
        var cents: Int
        var quantity: Int
        var fault: Fault?
    }

    /// RAX version and currency follow the export date, as they did in the field.
    var raxVersion: String { index % 4 == 1 ? "3.2" : (index % 2 == 0 ? "3.1" : "3.2") }
    var usesKroons: Bool { format == .rax && index % 4 == 1 }
    /// The header's currency: a kroon export labelled EUR (`.kroonsAsEuro`) keeps its kroon amounts.
    var declaredCurrency: String { usesKroons && night.wrongData != .kroonsAsEuro ? "EEK" : "EUR" }

    /// Local export time: kroon-era feeds at the end of 2010 (or on `firstDay`
    /// if it is earlier), the others on `firstDay`; a later night `daysLater`
    /// on; a copied branch a minute after its original.
    var exportParts: (year: Int, month: Int, day: Int, hour: Int, minute: Int) {
        let day = usesKroons ? min(GeneratedDay(year: 2010, month: 12, day: 30), firstDay) : firstDay
        let base = (day.year, day.month, day.day, 23, index % 60)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let start = calendar.date(from: DateComponents(year: base.0, month: base.1, day: base.2, hour: base.3, minute: base.4))!
        let minutes = night.copiesIndex.map { ($0 % 60) + 1 - index % 60 } ?? 0
        let moved = start.addingTimeInterval(TimeInterval(night.daysLater * 86_400 + minutes * 60))
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: moved)
        return (parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!)
    }

    var fileName: String {
        let t = exportParts
        switch format {
        case .rax: return String(format: "rax_%@_%04d%02d%02d%02d%02d.txt", pharmacyID, t.year, t.month, t.day, t.hour, t.minute)
        case .noom: return String(format: "noom_%@_%04d%02d%02d.xml", pharmacyID, t.year, t.month, t.day)
        case .csv: return String(format: "chain_%@_%04d-%02d-%02d.csv", pharmacyID, t.year, t.month, t.day)
        case .json: return String(format: "shop_%@_%04d%02d%02d.json", pharmacyID, t.year, t.month, t.day)
        case .fixed: return String(format: "mainframe_%@_%04d%02d%02d%02d%02d.txt", pharmacyID, t.year, t.month, t.day, t.hour, t.minute)
        case .dateless: return "transfer_\(pharmacyID).dat"
        case .pricelist: return String(format: "pricelist_%@_%04d%02d%02d%02d%02d.txt", pharmacyID, t.year, t.month, t.day, t.hour, t.minute)
        case .chain: preconditionFailure("a chain pharmacy's rows are written by ChainFeedWriter")
        }
    }

    private var allowedFaults: [Fault] {
        switch format {
        case .rax: return raxVersion == "3.1" ? Fault.allCases.filter { $0 != .badPackageCode } : Fault.allCases
        case .noom, .json, .fixed, .dateless: return Fault.allCases.filter { $0 != .badFieldCount }
        // No quantity is read: a wrong one is no fault.
        case .pricelist: return Fault.allCases.filter { $0 != .badFieldCount && $0 != .badQuantity }
        case .csv, .chain: return Fault.allCases
        }
    }

    func lines() -> [Line] {
        // A copied branch writes its original's lines (prices, stock, faults) under its own id.
        let source = night.copiesIndex ?? index
        var random = SeededRandom(seed: seed, stream: 1000 + UInt64(source))
        var drift = SeededRandom(seed: seed, stream: 3000 + UInt64(source) + UInt64(night.daysLater) << 32)
        // A stream of its own, so that adding stock changes left every seed's prices as they were.
        var sold = SeededRandom(seed: seed, stream: 4000 + UInt64(source) + UInt64(night.daysLater) << 32)
        let faults = allowedFaults
        var nextFault = source % faults.count
        var lines = catalog.items.enumerated().map { offset, item in
            let factor = 90 + (source * 7 + offset * 13) % 21
            var line = Line(item: item, cents: max(1, item.baseCents * factor / 100), quantity: random.int(0...60), fault: nil)
            if offset > 0, badRate > 0, random.chance(badRate) {
                line.fault = faults[nextFault % faults.count]
                nextFault += 1
            }
            if night.priceChangeRate > 0, drift.chance(night.priceChangeRate) {
                line.cents = max(1, line.cents * drift.int(70...130) / 100)
            }
            if night.quantityChangeRate > 0, sold.chance(night.quantityChangeRate) {
                line.quantity = (line.quantity + sold.int(1...60)) % 61
            }
            switch night.wrongData {
            case .kroonsAsEuro? where !usesKroons: line.cents = Int((Double(line.cents) * 15.6466).rounded())
            case .decimalSlip?: line.cents *= 100
            case .zeroStock?: line.quantity = 0
            default: break
            }
            return line
        }
        if night.wrongData == .itemCountCollapse { lines = lines.enumerated().filter { $0.offset % 30 == 0 }.map(\.element) }
        return lines
    }

    /// Writes the feed and returns its expected counts.
    func write(to directory: String, maxRejectRate: Int) throws -> GroundTruth.Feed {
        var truth = GroundTruth.Feed()
        let lines = lines()
        var sink = try ByteSink(path: "\(directory)/\(fileName)")
        defer { sink.close() }
        switch format {
        case .rax: try writeRAX(lines, into: &sink, truth: &truth)
        case .noom: writeNoom(lines, into: &sink, truth: &truth)
        case .csv: writeCSV(lines, into: &sink, truth: &truth)
        case .json: writeJSON(lines, into: &sink, truth: &truth)
        case .fixed, .dateless, .pricelist: writeFixed(lines, into: &sink, truth: &truth)
        case .chain: preconditionFailure("a chain pharmacy's rows are written by ChainFeedWriter")
        }
        if let reason = night.wrongData?.reason { truth.rejectWhole(reason) }
        switch wholeFault {
        case .truncated?: truth.rejectWhole("trailer_mismatch")
        case .unsupportedVersion?: truth.rejectWhole("unsupported_version", recordsExamined: false)
        case .summaryMismatch?: truth.rejectWhole("summary_mismatch")
        case .malformed?: truth.rejectWhole("malformed_xml")
        case .unsafe?: truth.rejectWhole("unsafe_xml")
        case .renamedHeader?: truth.rejectWhole("bad_header")
        case .truncatedJSON?:
            if truth.read > 0, truth.rejected * 100 > maxRejectRate * truth.read { truth.rejectWhole("reject_rate_exceeded") }
        case nil where night.wrongData?.reason == nil:
            if truth.read > 0, truth.rejected * 100 > maxRejectRate * truth.read { truth.rejectWhole("reject_rate_exceeded") }
        case nil: break
        }
        try sink.finish()
        if format == .dateless {
            // The file's only date: its modification time is the export's.
            let t = exportParts
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let time = calendar.date(from: DateComponents(year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute))!
            try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: "\(directory)/\(fileName)")
        }
        return truth
    }

    func count(_ line: Line, _ truth: inout GroundTruth.Feed) {
        if let fault = line.fault { truth.reject(fault.reason) } else { truth.accept() }
    }

    private func euros(_ cents: Int, separator: String) -> String {
        "\(cents / 100)\(separator)\(String(format: "%02d", cents % 100))"
    }

    private func badGTIN(_ gtin: String) -> String {
        String(gtin.dropLast()) + String((Int(String(gtin.last!))! + 1) % 10)
    }

    private func badPackage(_ code: String?) -> String {
        guard let code else { return "1234567" }
        return String(code.dropLast()) + String((Int(String(code.last!))! + 1) % 10)
    }

    // MARK: RAX

    private func writeRAX(_ lines: [Line], into sink: inout ByteSink, truth: inout GroundTruth.Feed) throws {
        let t = exportParts
        let version = wholeFault == .unsupportedVersion ? "3.3" : raxVersion
        let header = String(format: "H;RAX;%@;%@;%@;%04d%02d%02dT%02d%02d;%@\r\n", version, pharmacyID, pharmacyName,
                            t.year, t.month, t.day, t.hour, t.minute, declaredCurrency)
        sink.append(Windows1257.shared.encode(header)!)
        var quantitySum = 0
        let first = lines[0].item.aptcode
        for line in lines {
            let item = line.item
            var fields = ["I", line.fault == .duplicateKey ? first : item.aptcode]
            if raxVersion == "3.2" { fields.append(line.fault == .badPackageCode ? badPackage(item.packageCode) : item.packageCode ?? "") }
            let cents = usesKroons ? Int((Double(line.cents) * 15.6466).rounded()) : line.cents // kroon amounts, whatever the header says
            let price = line.fault == .badPrice ? "1.234,00" : euros(cents, separator: ",")
            let quantity = line.fault == .badQuantity ? -line.quantity - 1 : line.quantity
            fields += [line.fault == .badGTIN ? badGTIN(item.gtin) : item.gtin,
                       line.fault == .missingName ? "" : item.name, item.producer, item.atc ?? ""]
            if line.fault != .badFieldCount { fields.append(item.substance ?? "") }
            fields += [price, String(quantity)]
            quantitySum += quantity
            sink.append(Windows1257.shared.encode(fields.joined(separator: ";") + "\r\n")!)
            count(line, &truth)
        }
        if wholeFault != .truncated { sink.append("T;\(lines.count);\(quantitySum)\r\n") }
    }

    // MARK: Noom

    private func writeNoom(_ lines: [Line], into sink: inout ByteSink, truth: inout GroundTruth.Feed) {
        let t = exportParts
        sink.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        if wholeFault == .unsafe { sink.append("<!DOCTYPE stockExport [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n") }
        sink.append(String(format: "<stockExport xmlns=\"urn:noom:stock:2\" version=\"2.1\" generated=\"%04d-%02d-%02dT%02d:%02d:00+02:00\">\n",
                           t.year, t.month, t.day, t.hour, t.minute))
        sink.append("  <pharmacy id=\"\(pharmacyID)\" chain=\"\(index % 7)\">\(pharmacyName)</pharmacy>\n  <items currency=\"EUR\">\n")
        let first = lines[0].item.aptcode
        let cut = wholeFault == .malformed ? lines.count / 2 : lines.count
        for (position, line) in lines.prefix(cut).enumerated() {
            let item = line.item
            let aptcode = line.fault == .duplicateKey ? first : item.aptcode
            var package = item.packageCode.map { " packageCode=\"\($0)\"" } ?? ""
            if line.fault == .badPackageCode { package = " packageCode=\"\(badPackage(item.packageCode))\"" }
            // Net price from the shelf price: cents × 100 / (100 + VAT), to the cent.
            let net = line.cents * 100 / (100 + item.vatPercent)
            let price = line.fault == .badPrice ? "abc" : euros(net, separator: ".")
            sink.append("    <item aptcode=\"\(aptcode)\"\(package)>\n      <gtin>\(line.fault == .badGTIN ? badGTIN(item.gtin) : item.gtin)</gtin>\n")
            // Every other line's name is written decomposed (NFD: `o` and a combining tilde for `õ`), as some
            // exports do; the snapshot and its search see them composed (READ_API.md Version 3).
            let name = position % 2 == 1 ? item.name.decomposedStringWithCanonicalMapping : item.name
            if line.fault != .missingName { sink.append("      <name>\(name)</name>\n") }
            sink.append("      <producer>\(item.producer.replacingOccurrences(of: "'", with: "&apos;"))</producer>\n")
            if let atc = item.atc { sink.append("      <atc>\(atc)</atc>\n") }
            if let substance = item.substance { sink.append("      <substance>\(substance)</substance>\n") }
            sink.append("      <price net=\"\(price)\" vatRate=\"\(item.vatPercent)\"/>\n")
            sink.append("      <stock>\(line.fault == .badQuantity ? -1 : line.quantity)</stock>\n    </item>\n")
            if wholeFault != .unsafe { count(line, &truth) }
        }
        if wholeFault == .malformed {
            sink.append("    <item aptcode=\"CUT\"><name>cut off here")
            return
        }
        sink.append("  </items>\n  <summary itemCount=\"\(wholeFault == .summaryMismatch ? lines.count + 1 : lines.count)\"/>\n</stockExport>\n")
    }

    // MARK: Mapped JSON

    /// `{"pharmacy": …, "exported": …, "items": [{…}, …]}`, the prices as
    /// JSON numbers. A truncated file (`truncatedJSON`) keeps the records
    /// before the break; the rest is one `malformed_json` reject.
    private func writeJSON(_ lines: [Line], into sink: inout ByteSink, truth: inout GroundTruth.Feed) {
        let t = exportParts
        func string(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        sink.append(String(format: "{\"pharmacy\": %@, \"name\": %@, \"exported\": \"%04d-%02d-%02d %02d:%02d\",\n \"items\": [\n",
                           string(pharmacyID), string(pharmacyName), t.year, t.month, t.day, t.hour, t.minute))
        let first = lines[0].item.aptcode
        let cut = wholeFault == .truncatedJSON ? lines.count / 2 : lines.count
        for (number, line) in lines.prefix(cut).enumerated() {
            let item = line.item
            var fields = ["\"code\": " + string(line.fault == .duplicateKey ? first : item.aptcode)]
            if let package = item.packageCode { fields.append("\"package\": " + string(line.fault == .badPackageCode ? badPackage(package) : package)) }
            fields.append("\"gtin\": " + string(line.fault == .badGTIN ? badGTIN(item.gtin) : item.gtin))
            if line.fault != .missingName { fields.append("\"name\": " + string(item.name)) } else { fields.append("\"name\": null") }
            fields.append("\"maker\": {\"name\": " + string(item.producer) + "}")
            if let atc = item.atc { fields.append("\"atc\": " + string(atc)) }
            fields.append("\"price\": " + (line.fault == .badPrice ? "\"1.234,00\"" : euros(line.cents, separator: ".")))
            fields.append("\"stock\": \(line.fault == .badQuantity ? -2 : line.quantity)")
            sink.append((number == 0 ? "  {" : ",\n  {") + fields.joined(separator: ", ") + "}")
            count(line, &truth)
        }
        if wholeFault == .truncatedJSON {
            sink.append(",\n  {\"code\": \"CUT\", \"name\": \"cut off he")
            truth.reject("malformed_json")
            return
        }
        sink.append("\n]}\n")
    }

    /// The mapping of the generated `shop_*.json` feeds.
    public static let jsonMapping = """
    # Written by `ingest generate` for its shop_*.json stock feeds (FEEDS.md §12).
    [match]
    filename = "shop_*.json"

    [format]
    type = "json"
    record = "/items"
    date_format = "yyyy-MM-dd HH:mm"

    [prices]
    currency = "EUR"
    includes_vat = true

    [columns]
    pharmacy_id = "$/pharmacy"
    pharmacy_name = "$/name"
    exported_at = "$/exported"
    aptcode = "/code"
    package_code = "/package"
    gtin = "/gtin"
    name = "/name"
    producer = "/maker/name"
    atc = "/atc"
    price = "/price"
    quantity = "/stock"

    """

    // MARK: Mapped fixed width

    /// Each field's character range, 1-based and inclusive, as `fixedMapping` reads them.
    static let fixedColumns: [(field: String, first: Int, last: Int)] = [
        ("aptcode", 1, 12), ("package_code", 13, 20), ("gtin", 21, 34), ("name", 35, 94), ("producer", 95, 134),
        ("atc", 135, 142), ("price", 143, 154), ("quantity", 155, 164),
    ]

    /// A title line, then one record a line, each field padded to its range
    /// (prices right-aligned, as such exports do); UTF-8, LF.
    private func writeFixed(_ lines: [Line], into sink: inout ByteSink, truth: inout GroundTruth.Feed) {
        sink.append("STOCK \(pharmacyID) \(pharmacyName)\n")
        let first = lines[0].item.aptcode
        for line in lines {
            let item = line.item
            let values = [line.fault == .duplicateKey ? first : item.aptcode,
                          line.fault == .badPackageCode ? badPackage(item.packageCode) : item.packageCode ?? "",
                          line.fault == .badGTIN ? badGTIN(item.gtin) : item.gtin,
                          line.fault == .missingName ? "" : item.name, item.producer, item.atc ?? "",
                          line.fault == .badPrice ? "1.234,00" : euros(line.cents, separator: "."),
                          String(line.fault == .badQuantity ? -2 : line.quantity)]
            var text = ""
            for (index, column) in Self.fixedColumns.enumerated() {
                let width = column.last - column.first + 1
                let value = String(values[index].unicodeScalars.prefix(width).map(Character.init))
                let padding = String(repeating: " ", count: width - value.unicodeScalars.count)
                text += index >= 6 ? padding + value : value + padding
            }
            sink.append(text + "\n")
            count(line, &truth)
        }
    }

    /// The mapping of the generated `transfer_*.dat` feeds: the same lines, no date anywhere in the file or its name.
    public static var datelessMapping: String {
        """
        # Written by `ingest generate` for its transfer_*.dat stock feeds (FEEDS.md §12.1): no date in the file or
        # its name, republished under one name; the export time is the file's modification time.
        [match]
        filename = "transfer_*.dat"

        [format]
        type = "fixed"
        header = 1

        [prices]
        currency = "EUR"
        includes_vat = true

        [pharmacy]
        id_from_filename = '^transfer_([A-Za-z0-9]+)\\.dat$'

        [export]
        date = "modified"

        [columns]

        """ + fixedColumns.map { "\($0.field) = [\($0.first), \($0.last)]" }.joined(separator: "\n") + "\n"
    }

    /// The mapping of the generated `mainframe_*.txt` feeds.
    public static var fixedMapping: String {
        datedFixedMapping(prefix: "mainframe", about: "stock feeds (FEEDS.md §12)", columns: fixedColumns)
    }

    /// The mapping of the generated `pricelist_*.txt` feeds: the fixed-width
    /// lines with every column but the quantity.
    public static var priceListMapping: String {
        datedFixedMapping(prefix: "pricelist", about: "feeds (FEEDS.md §12): a price list, no stock column",
                          columns: fixedColumns.filter { $0.field != "quantity" })
    }

    /// A fixed-width mapping for files named `<prefix>_<id>_<yyyyMMddHHmm>.txt`.
    private static func datedFixedMapping(prefix: String, about: String, columns: [(field: String, first: Int, last: Int)]) -> String {
        """
        # Written by `ingest generate` for its \(prefix)_*.txt \(about).
        [match]
        filename = "\(prefix)_*.txt"

        [format]
        type = "fixed"
        header = 1
        date_format = "yyyyMMddHHmm"

        [prices]
        currency = "EUR"
        includes_vat = true

        [pharmacy]
        id_from_filename = '^\(prefix)_([A-Za-z0-9]+)_'

        [export]
        date_from_filename = '_([0-9]{12})\\.txt$'

        [columns]

        """ + columns.map { "\($0.field) = [\($0.first), \($0.last)]" }.joined(separator: "\n") + "\n"
    }

    // MARK: Mapped CSV

    /// The mapped CSV layout's columns, in order (`mapping` reads them).
    public static let csvHeader = ["apteek", "apteegi_nimi", "kood", "pakend", "gtin", "nimetus", "tootja", "atc", "hind", "kogus", "kuupaev"]

    private func writeCSV(_ lines: [Line], into sink: inout ByteSink, truth: inout GroundTruth.Feed) {
        sink.append([0xEF, 0xBB, 0xBF])
        var header = Self.csvHeader
        if wholeFault == .renamedHeader { header[5] = "nimi" } // a mapped column, not one the file is recognised by
        sink.append(header.joined(separator: ";") + "\r\n")
        let first = lines[0].item.aptcode
        for line in lines {
            sink.append(csvRow(line, first: first))
            count(line, &truth)
        }
    }

    /// One row of the mapped CSV layout (`csvHeader`), with its fault; `first`
    /// is the aptcode a duplicate repeats.
    func csvRow(_ line: Line, first: String) -> String {
        let t = exportParts
        let date = String(format: "%02d.%02d.%04d", t.day, t.month, t.year)
        func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let item = line.item
        var fields = [pharmacyID, quoted(pharmacyName), line.fault == .duplicateKey ? first : item.aptcode,
                      line.fault == .badPackageCode ? badPackage(item.packageCode) : item.packageCode ?? "",
                      line.fault == .badGTIN ? badGTIN(item.gtin) : item.gtin,
                      line.fault == .missingName ? "" : quoted(item.name), quoted(item.producer), item.atc ?? "",
                      line.fault == .badPrice ? "1.234,00" : euros(line.cents, separator: ","),
                      line.fault == .badQuantity ? "-2" : String(line.quantity), date]
        if line.fault == .badFieldCount { fields.removeLast() }
        return fields.joined(separator: ";") + "\r\n"
    }

    /// The mapping of the generated `chain_*.csv` feeds; tests use it for chain files of their own.
    public static let mapping = """
    # Written by `ingest generate` for its chain_*.csv stock feeds (FEEDS.md §3).
    [match]
    filename = "chain_*.csv"
    required_columns = ["apteek", "kood", "hind"]

    [format]
    delimiter = ";"
    quote = "\\""
    encoding = "UTF-8"
    header = true
    decimal_separator = ","
    date_format = "dd.MM.yyyy"

    [prices]
    currency = "EUR"
    includes_vat = true

    [columns]
    pharmacy_id = "apteek"
    pharmacy_name = "apteegi_nimi"
    aptcode = "kood"
    package_code = "pakend"
    gtin = "gtin"
    name = "nimetus"
    producer = "tootja"
    atc = "atc"
    price = "hind"
    quantity = "kogus"
    exported_at = "kuupaev"

    """
}
