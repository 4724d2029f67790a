import Foundation
import IngestCore

/// Turns one mapped record (canonical field → text) into a `StockOffer` or a
/// reject. Shared by the delimited and XML mapped adapters, so both apply the
/// same rules as RAX and Noom through `StockFieldRules`.
///
/// A class: the parse callbacks capture it, and a captured struct was copied
/// out of its box (mapping, duplicate set and all) for every row.
final class MappedRecordReader {
    /// The codes and names text hygiene checks, with the longest each may be.
    static let checkedText: [(CanonicalField, Int?)] = [
        (.aptcode, nil), (.packageCode, nil), (.gtin, nil), (.atc, nil), (.pharmacyID, nil),
        (.name, TextHygiene.longestName), (.producer, TextHygiene.longestName), (.activeSubstance, TextHygiene.longestName),
        (.pharmacyName, TextHygiene.longestName),
    ]
    static let fieldNames = StockFieldRules.FieldNames(packageCode: "package_code", producer: "producer", activeSubstance: "active_substance")
    let mapping: StockFeedMapping
    /// Values captured from the file name or fixed by the mapping (pharmacy
    /// id, export date), by `CanonicalField.position`; they win over columns.
    let fileValues: [String?]
    /// The record being read, by `CanonicalField.position`, trimmed: the
    /// adapter fills it, then calls `read` or `establishHeader`. An array
    /// and not a closure: a closure per row handed out a retained string
    /// for every field it was asked for.
    var fields = [String?](repeating: nil, count: CanonicalField.allCases.count)
    /// The values the `[filter] skip_when` conditions test, in the mapping's order, trimmed.
    var conditionValues: [String?]
    /// The conditions' regular expressions, compiled once (nil for the other tests).
    private let conditionPatterns: [NSRegularExpression?]
    /// The pharmacy this feed is for (the first record's, when it comes from a column).
    var pharmacyID: String?
    var header: StockFeedHeader?
    var headerProblem: FeedFailure?
    /// Settled once the first record (or its failure) set the header: checked
    /// for every row, and comparing the optional header copied it each time.
    private var headerSettled = false
    /// The mapping's fixed currency (ISO 4217), checked once instead of once a row.
    private let fixedCurrency: String?
    /// Set when a chain file is split: each record goes to its pharmacy's part.
    let router: ChainRouter?
    /// The currency of the feed (or chain part) the current record belongs to, once its header is known.
    private var feedCurrency: String?
    /// The mapping's missing values per field past the empty one, nil where
    /// there are none: most fields of most mappings. Looking each value up
    /// in a set that held only "" hashed (and NFC-normalised) every field of
    /// every row: a sixth of a mapped CSV's parse (perf, `ingest check`).
    private let extraMissingValues: [Set<String>?]
    /// `[values]` by field position, nil for the fields it does not name.
    private let translations: [[String: String]?]
    /// Set for a registry or register mapping: each record not filtered out
    /// goes here with its line (its fields read through `value`), never
    /// becoming an offer.
    var rowSink: ((Int, MappedRecordReader) -> Void)?

    /// The export time of a file without a date of its own (`[export] date = "modified"` or `"run"`).
    let exportTime: ExportTimestamp?

    init(mapping: StockFeedMapping, fileName: String, exportTime: ExportTimestamp? = nil, router: ChainRouter? = nil) {
        self.mapping = mapping
        self.exportTime = exportTime
        self.router = router
        var values = [String?](repeating: nil, count: CanonicalField.allCases.count)
        if case .fileName(let pattern) = mapping.pharmacyID { values[CanonicalField.pharmacyID.position] = Self.capture(pattern, in: fileName) }
        if case .fixed(let id) = mapping.pharmacyID { values[CanonicalField.pharmacyID.position] = id }
        if case .fileName(let pattern) = mapping.exportedAt { values[CanonicalField.exportedAt.position] = Self.capture(pattern, in: fileName) }
        if case .fixed(let date) = mapping.exportedAt { values[CanonicalField.exportedAt.position] = date }
        for (field, constant) in mapping.constants { values[field.position] = constant }
        self.fileValues = values.map { $0?.trimmed }
        if case .fixed(let code) = mapping.currency { fixedCurrency = code.trimmed.uppercased() } else { fixedCurrency = nil }
        extraMissingValues = mapping.missingValues.map { values in
            let extra = values.subtracting([""])
            return extra.isEmpty ? nil : extra
        }
        translations = CanonicalField.allCases.map { mapping.translations[$0] }
        conditionValues = Array(repeating: nil, count: mapping.skipWhen.count)
        conditionPatterns = mapping.skipWhen.map { condition in
            // The loader compiled each pattern once already; a failure here cannot happen.
            guard case .matches(let pattern) = condition.test else { return nil }
            return try? NSRegularExpression(pattern: "^(?:\(pattern))$")
        }
    }

    /// Turns the values the mapping calls missing into nil (FEEDS.md §12:
    /// `missing_values`; an empty value is always missing), then replaces
    /// the values `[values]` translates (§12.1), before any field's rules.
    func applyMissingValues() {
        for position in fields.indices {
            guard let text = fields[position] else { continue }
            if text.isEmpty || extraMissingValues[position]?.contains(text) == true {
                fields[position] = nil
            } else if let lookup = translations[position], let meant = lookup[MappedFieldValue.lookupKey(text)] {
                fields[position] = meant
            }
        }
    }

    /// The first `skip_when` condition the current record meets, described for its reject.
    func skipReason() -> String? {
        for (index, condition) in mapping.skipWhen.enumerated() {
            let value = conditionValues[index] ?? ""
            let met: Bool
            switch condition.test {
            case .equals(let operand): met = value == operand
            case .notEquals(let operand): met = value != operand
            case .matches:
                met = conditionPatterns[index].map { $0.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil } ?? false
            }
            if met { return "skipped by the mapping's filter: \(condition.column) \(condition.test)" }
        }
        return nil
    }

    /// The first capture group of `pattern` in `text`.
    static func capture(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              match.numberOfRanges > 1, let range = Range(match.range(at: 1), in: text) else { return nil }
        return String(text[range])
    }

    /// The value of `field` in the current record.
    @inline(__always)
    func value(_ field: CanonicalField) -> String? {
        fileValues[field.position] ?? fields[field.position]
    }

    /// Sets the feed's header from the first record (or the file name).
    func establishHeader(line: Int) {
        guard !headerSettled else { return }
        headerSettled = true
        if rowSink != nil {
            // A registry or register has no pharmacy or export of its own: the header only says a record came.
            let date = exportTime ?? mapping.dateFormat.parse(value(.exportedAt) ?? "", in: mapping.timeZone)
            header = StockFeedHeader(pharmacyID: "", pharmacyName: nil, exportedAt: date ?? ExportTimestamp(epochSeconds: 0, utcOffsetSeconds: 0),
                                     format: mapping.adapterName)
            return
        }
        switch recordHeader(line: line) {
        case .success(let header):
            pharmacyID = header.pharmacyID
            self.header = header
        case .failure(let problem):
            headerProblem = problem
        }
    }

    /// The pharmacy and export date the current record names.
    func recordHeader(line: Int) -> Result<StockFeedHeader, FeedFailure> {
        guard let id = value(.pharmacyID), !id.isEmpty else {
            return .failure(FeedFailure(reason: .badHeader, message: "no pharmacy id (\(describe(mapping.pharmacyID)))", line: line))
        }
        let exportedText = value(.exportedAt) ?? ""
        guard let exported = exportTime ?? mapping.dateFormat.parse(exportedText, in: mapping.timeZone) else {
            return .failure(FeedFailure(reason: .badHeader, message: "export date '\(exportedText)' does not match \(mapping.dateFormat.pattern) (\(describe(mapping.exportedAt)))", line: line))
        }
        // The first record's currency (or the mapping's) is the feed's; a
        // record in another that does not convert to it is `wrong_currency`.
        let currency = Money.keptCurrency(of: fixedCurrency ?? value(.currency) ?? "") ?? "EUR"
        return .success(StockFeedHeader(pharmacyID: id, pharmacyName: value(.pharmacyName), exportedAt: exported, format: mapping.adapterName,
                                        currency: currency))
    }

    private func describe(_ source: StockFeedMapping.Source) -> String {
        switch source {
        case .column(let name): return "column \(name)"
        case .fileName(let pattern): return "file name pattern \(pattern)"
        case .fixed(let value): return "fixed \(value)"
        }
    }

    /// The current record (`fields`) as an offer or a reject: into the
    /// feed's output, or, when splitting a chain file, its pharmacy's part
    /// (a record without a pharmacy id stays in the file's own output).
    func read(line: Int, output: inout FeedOutput<StockOffer>) {
        applyMissingValues()
        if let rowSink {
            establishHeader(line: line)
            if let reason = skipReason() {
                output.reject(line: line, key: value(.id) ?? value(.packageCode) ?? "", reason: .filtered, message: reason)
            } else {
                rowSink(line, self)
            }
            return
        }
        let aptcode = (value(.aptcode) ?? "").uppercasedCode
        guard let router else {
            establishHeader(line: line)
            feedCurrency = header?.currency
            if let reason = skipReason() {
                output.reject(line: line, key: aptcode, reason: .filtered, message: reason)
                return
            }
            do throws(StockFieldRules.Problem) {
                let (offer, gtin) = try offer(line: line, aptcode: aptcode)
                guard output.isFirstOccurrence(offer.aptcode) else { throw StockFieldRules.duplicate(offer.aptcode) }
                output.warnIfRestricted(gtin, line: line, key: offer.aptcode)
                output.accept(offer)
            } catch {
                output.reject(error, line: line, key: aptcode)
            }
            return
        }
        guard let id = value(.pharmacyID), !id.isEmpty else {
            output.reject(line: line, key: aptcode, reason: .missingField,
                          message: "no pharmacy id (\(describe(mapping.pharmacyID))): the row belongs to no pharmacy", field: "pharmacy_id")
            return
        }
        route(line: line, pharmacyID: id, router: router)
    }

    /// The current record, which names pharmacy `id`, into that pharmacy's part.
    func route(line: Int, pharmacyID id: String, router: ChainRouter) {
        applyMissingValues()
        let aptcode = (value(.aptcode) ?? "").uppercasedCode
        let part = router.part(id)
        if !part.headerSettled {
            part.settleHeader(recordHeader(line: line), dateText: value(.exportedAt), line: line)
        } else if case .column = mapping.exportedAt {
            part.checkExportDate(value(.exportedAt), line: line, perRow: mapping.exportDatePerRow) { recordHeader(line: line) }
        }
        feedCurrency = part.header?.currency
        if let reason = skipReason() {
            part.collected.reject(line: line, key: aptcode, reason: .filtered, message: reason)
            return
        }
        do {
            let (offer, gtin) = try offer(line: line, aptcode: aptcode)
            part.collected.warnIfRestricted(gtin, line: line, key: offer.aptcode)
            router.accept(offer, into: part)
        } catch {
            part.collected.reject(error, line: line, key: aptcode)
        }
    }

    /// A row rejected before its fields could be read one by one (a field
    /// count off, text that does not decode): in a chain file it still counts
    /// for its pharmacy when the pharmacy id could be read (`fields` holds it).
    func rejectRow(line: Int, reason: RejectReason, message: String, field: String?, output: inout FeedOutput<StockOffer>) {
        let key = (value(.aptcode) ?? "").uppercasedCode
        if let router, let id = value(.pharmacyID), !id.isEmpty {
            routeReject(line: line, pharmacyID: id, router: router, reason: reason, message: message, field: field)
        } else {
            output.reject(line: line, key: key, reason: reason, message: message, field: field)
        }
    }

    /// A row rejected whole, into the part of pharmacy `id`, which it names.
    func routeReject(line: Int, pharmacyID id: String, router: ChainRouter, reason: RejectReason, message: String, field: String?) {
        let key = (value(.aptcode) ?? "").uppercasedCode
        router.part(id).collected.reject(line: line, key: key, reason: reason, message: message, field: field)
    }

    /// The current record checked field by field. Duplicates are found here
    /// for a single feed; a chain part finds its own when it is replayed, one
    /// pharmacy at a time, so the split keeps no set of keys per pharmacy.
    private func offer(line: Int, aptcode: String) throws(StockFieldRules.Problem) -> (StockOffer, (gtin: String, restricted: Bool)?) {
        if router == nil, case .column = mapping.pharmacyID, let expected = pharmacyID {
            let id = value(.pharmacyID) ?? ""
            guard id == expected else {
                throw StockFieldRules.Problem(reason: .pharmacyMismatch, field: "pharmacy_id",
                                              message: "pharmacy '\(id)' differs from the feed's pharmacy \(expected); one feed holds one pharmacy")
            }
        }
        // Text hygiene (FEEDS.md §12): a code or a name holds no line break or control character; a name at most 500 characters.
        for (field, longest) in Self.checkedText {
            if let text = value(field), let problem = TextHygiene.problem(in: text, longest: longest) {
                throw .init(reason: .badText, field: field.rawValue, message: "\(field.rawValue) has \(problem)")
            }
        }
        let key = try StockFieldRules.required(aptcode, field: "aptcode")
        let description = try StockFieldRules.description(
            packageCode: value(.packageCode), gtin: value(.gtin), name: value(.name),
            producer: value(.producer), activeSubstance: value(.activeSubstance), fields: Self.fieldNames)
        let cents = try price()
        // A price list maps no quantity: its offers report no stock (NULL), never a made-up number.
        let quantity = mapping.columns[.quantity] == nil ? nil : try StockFieldRules.quantity(value(.quantity))
        func optional(_ field: CanonicalField) -> String? { value(field).flatMap { $0.isEmpty ? nil : $0 } }
        let offer = StockOffer(
            aptcode: key, packageCode: description.packageCode, gtin: description.gtin?.gtin, name: description.name, producer: optional(.producer),
            atc: optional(.atc)?.uppercasedCode, activeSubstance: optional(.activeSubstance),
            priceCents: cents, quantity: quantity, line: line)
        return (offer, description.gtin)
    }

    private func price() throws(StockFieldRules.Problem) -> Int64 {
        guard let text = value(.price) else {
            throw .init(reason: .missingPrice, field: "price", message: "no price (empty or one of the mapping's missing values)")
        }
        let code: String
        switch mapping.currency {
        case .fixed: code = fixedCurrency ?? ""
        case .column: code = value(.currency) ?? ""
        case .fileName: code = ""
        }
        guard let kept = Money.keptCurrency(of: code) else {
            throw .init(reason: .badPrice, field: "currency", message: "currency '\(code)' is not an ISO 4217 code")
        }
        var amount: ExactDecimal
        switch PriceText.parse(text, decimalSeparator: mapping.decimalSeparator, thousands: mapping.thousandsSeparator, currency: code.trimmed.uppercased()) {
        case .success(let parsed): amount = parsed
        case .failure(.otherCurrency(let marker)):
            throw .init(reason: .wrongCurrency, field: "price",
                        message: "price '\(text)' is written in \(marker), the feed's prices are in \(code.trimmed.uppercased()); never converted at a market rate")
        case .failure(.notANumber):
            let thousands = mapping.thousandsSeparator.map { " and '\($0)' between thousands" } ?? ""
            throw .init(reason: .badPrice, field: "price",
                        message: "price '\(text)' is not a decimal number with '\(Character(Unicode.Scalar(mapping.decimalSeparator)))' as separator\(thousands)")
        }
        if mapping.pricesInMinorUnits {
            // Written in cents, pence, öre: the minor unit of the currency written (the kroon's sent for EEK).
            let exponent = Currency(code: code) != nil ? 2 : ISO4217.minorUnits(code.trimmed.uppercased())
            amount = ExactDecimal(units: amount.units, scale: amount.scale + exponent)
        }
        if let feedCurrency, kept != feedCurrency {
            throw .init(reason: .wrongCurrency, field: "currency",
                        message: "price in \(code), the feed's prices are in \(feedCurrency); never converted at a market rate")
        }
        do {
            guard let vatSource = mapping.vatRate else { return try Money.minorUnits(amount, writtenIn: code) }
            let rateText: String
            switch vatSource {
            case .fixed(let fixed): rateText = fixed
            case .column: rateText = value(.vatRate) ?? ""
            case .fileName: rateText = ""
            }
            guard let rate = ExactDecimal.parse(rateText.utf8, decimalSeparator: mapping.decimalSeparator, maxFractionDigits: 4)
                    ?? ExactDecimal.parse(rateText, decimalSeparator: ".", maxFractionDigits: 4) else {
                throw StockFieldRules.Problem(reason: .badPrice, field: "vat_rate", message: "VAT rate '\(rateText)' is not a number")
            }
            return try Money.shelfMinorUnits(net: amount, vatPercent: rate, writtenIn: code)
        } catch let problem as StockFieldRules.Problem {
            throw problem
        } catch {
            throw .init(reason: .badPrice, field: "price", message: "price '\(text)' is out of range")
        }
    }
}

extension RejectReason {
    /// A feed (or a record) in a currency other than the snapshot's that does
    /// not convert to it at a fixed rate (SNAPSHOT.md): never at a market rate.
    public static let wrongCurrency = RejectReason(rawValue: "wrong_currency")
    public static let pharmacyMismatch = RejectReason(rawValue: "pharmacy_mismatch")
    /// A code or name with a line break or control character, or a name over 500 characters (FEEDS.md §12).
    public static let badText = RejectReason(rawValue: "bad_text")
    /// A price the mapping calls missing (FEEDS.md §12): never published as 0.00.
    public static let missingPrice = RejectReason(rawValue: "missing_price")
    /// Left out by the mapping's `[filter] skip_when`; counts in neither side of the reject rate.
    public static let filtered = RejectReason(rawValue: "filtered")
}

extension StockFeedMapping.SkipCondition.Test: CustomStringConvertible {
    public var description: String {
        switch self {
        case .equals(let operand): "equals '\(operand)'"
        case .notEquals(let operand): "is not '\(operand)'"
        case .matches(let pattern): "matches /\(pattern)/"
        }
    }
}
