import Foundation
import IngestCore

/// Turns one mapped record (canonical field → text) into a `StockOffer` or a
/// reject. Shared by the delimited and XML mapped adapters, so both apply the
/// same rules as RAX and Noom through `StockFieldRules`.
///
/// A class: the parse callbacks capture it, and a captured struct was copied
/// out of its box (mapping, duplicate set and all) for every row.
final class MappedRecordReader {
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
    /// The pharmacy this feed is for (the first record's, when it comes from a column).
    var pharmacyID: String?
    var header: StockFeedHeader?
    var headerProblem: FeedFailure?
    private var seen = Set<String>()
    /// Settled once the first record (or its failure) set the header: checked
    /// for every row, and comparing the optional header copied it each time.
    private var headerSettled = false
    /// The mapping's fixed currency, parsed once instead of once a row.
    private let fixedCurrency: Currency?

    init(mapping: StockFeedMapping, fileName: String) {
        self.mapping = mapping
        var values = [String?](repeating: nil, count: CanonicalField.allCases.count)
        if case .fileName(let pattern) = mapping.pharmacyID { values[CanonicalField.pharmacyID.position] = Self.capture(pattern, in: fileName) }
        if case .fixed(let id) = mapping.pharmacyID { values[CanonicalField.pharmacyID.position] = id }
        if case .fileName(let pattern) = mapping.exportedAt { values[CanonicalField.exportedAt.position] = Self.capture(pattern, in: fileName) }
        self.fileValues = values.map { $0?.trimmed }
        if case .fixed(let code) = mapping.currency { fixedCurrency = Currency(code: code) } else { fixedCurrency = nil }
        // A feed lists thousands of items: start the duplicate set big enough.
        seen.reserveCapacity(16_384)
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
        guard let id = value(.pharmacyID), !id.isEmpty else {
            headerProblem = FeedFailure(reason: .badHeader, message: "no pharmacy id (\(describe(mapping.pharmacyID)))", line: line)
            return
        }
        let exportedText = value(.exportedAt) ?? ""
        guard let exported = mapping.dateFormat.parse(exportedText, in: mapping.timeZone) else {
            headerProblem = FeedFailure(reason: .badHeader, message: "export date '\(exportedText)' does not match \(mapping.dateFormat.pattern) (\(describe(mapping.exportedAt)))", line: line)
            return
        }
        pharmacyID = id
        header = StockFeedHeader(pharmacyID: id, pharmacyName: value(.pharmacyName), exportedAt: exported,
                                 format: mapping.adapterName)
    }

    private func describe(_ source: StockFeedMapping.Source) -> String {
        switch source {
        case .column(let name): return "column \(name)"
        case .fileName(let pattern): return "file name pattern \(pattern)"
        case .fixed(let value): return "fixed \(value)"
        }
    }

    /// The current record (`fields`) as an offer or a reject.
    func read(line: Int, output: inout FeedOutput<StockOffer>) {
        establishHeader(line: line)
        let aptcode = (value(.aptcode) ?? "").uppercasedCode
        do throws(StockFieldRules.Problem) {
            let key = try StockFieldRules.required(aptcode, field: "aptcode")
            if case .column = mapping.pharmacyID, let expected = pharmacyID {
                let id = value(.pharmacyID) ?? ""
                guard id == expected else {
                    throw StockFieldRules.Problem(reason: .pharmacyMismatch, field: "pharmacy_id",
                                                  message: "pharmacy '\(id)' differs from the feed's pharmacy \(expected); one feed holds one pharmacy")
                }
            }
            let description = try StockFieldRules.description(
                packageCode: value(.packageCode), gtin: value(.gtin), name: value(.name),
                producer: value(.producer), activeSubstance: value(.activeSubstance), fields: Self.fieldNames)
            let cents = try price()
            let quantity = try StockFieldRules.quantity(value(.quantity))
            guard seen.insert(key).inserted else { throw StockFieldRules.duplicate(key) }
            output.warnIfRestricted(description.gtin, line: line, key: key)
            func optional(_ field: CanonicalField) -> String? { value(field).flatMap { $0.isEmpty ? nil : $0 } }
            output.accept(StockOffer(
                aptcode: key, packageCode: description.packageCode, gtin: description.gtin?.gtin, name: description.name, producer: optional(.producer),
                atc: optional(.atc)?.uppercasedCode, activeSubstance: optional(.activeSubstance),
                priceCents: cents, quantity: quantity, line: line))
        } catch {
            output.reject(error, line: line, key: aptcode)
        }
    }

    private func price() throws(StockFieldRules.Problem) -> Int64 {
        let text = value(.price) ?? ""
        guard let amount = ExactDecimal.parse(text.utf8, decimalSeparator: mapping.decimalSeparator, maxFractionDigits: 4) else {
            throw .init(reason: .badPrice, field: "price", message: "price '\(text)' is not a decimal number with '\(Character(Unicode.Scalar(mapping.decimalSeparator)))' as separator")
        }
        let code: String
        switch mapping.currency {
        case .fixed(let fixed): code = fixed
        case .column: code = value(.currency) ?? ""
        case .fileName: code = ""
        }
        guard let currency = fixedCurrency ?? Currency(code: code) else {
            throw .init(reason: .badPrice, field: "currency", message: "currency '\(code)' is not EUR, EEK, LVL or LTL")
        }
        do {
            guard let vatSource = mapping.vatRate else { return try Money.cents(amount, in: currency) }
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
            return try Money.shelfCents(net: amount, vatPercent: rate, in: currency)
        } catch let problem as StockFieldRules.Problem {
            throw problem
        } catch {
            throw .init(reason: .badPrice, field: "price", message: "price '\(text)' is out of range")
        }
    }
}

extension RejectReason {
    public static let pharmacyMismatch = RejectReason(rawValue: "pharmacy_mismatch")
}
