import Foundation
import IngestCore

/// The health insurance fund's list of reimbursed medicines (FEEDS.md §6):
/// packages by package code, limit prices, tiers with published diagnoses
/// and info texts, and the legend of abbreviations.
public struct ReimbursementListAdapter: FeedAdapter {
    public let name = "reimbursement-list"
    public let summary = "Reimbursement list (FEEDS.md §6), XML; recognised by root element reimbursementList"
    public let kind = FeedKind.reimbursementList
    public static let rates: Set<Int> = [50, 75, 100]

    public init() {}

    public func recognises(_ file: FeedFile) -> Bool {
        XMLSniffer.rootIs("reimbursementList", namespace: nil, in: file.sampleWithoutBOM)
    }

    /// What the root element says of the whole list.
    public struct Header: Sendable, Equatable {
        /// `validFrom`; nil when missing or bad, which rejects the file.
        public var validFrom: String?
        /// ISO 4217 code of its amounts: the root's `currency` attribute,
        /// else EUR, the Estonian fund's (SNAPSHOT.md "Money in other currencies").
        public var currency: String
    }

    /// The list and its header; a `currency` that is no ISO 4217 code rejects the file.
    public func parse(_ file: FeedFile, into output: inout FeedOutput<ReimbursementEntry>) -> Header? {
        let parser = StreamingXMLParser()
        let reader = ReimbursementListReader(output: output, parser: parser)
        defer { output = reader.output }
        do {
            try parser.parse(file, handler: reader)
        } catch {
            reader.output.failure = error
        }
        if reader.output.failure == nil, reader.validFrom == nil {
            reader.output.failure = FeedFailure(reason: .badHeader, message: "reimbursementList has no validFrom date (yyyy-MM-dd)", line: 1)
        }
        if reader.output.failure == nil, ISO4217.code(reader.currency) == nil {
            reader.output.failure = FeedFailure(reason: .badHeader, message: "reimbursementList currency '\(reader.currency)' is not an ISO 4217 code", line: 1)
        }
        return Header(validFrom: reader.validFrom, currency: reader.currency)
    }
}

final class ReimbursementListReader: XMLStreamHandler {
    var output: FeedOutput<ReimbursementEntry>
    var validFrom: String?
    var currency = "EUR"
    private var seen = Set<String>()
    private var legendCodes = Set<String>()

    private struct Package {
        var code: String
        var line: Int
        var limit: String?
        var tiers: [(rate: String, diagnoses: String?, info: String?, line: Int)] = []
        /// The first field whose text went past `XMLTextCapture.maxBytes`:
        /// the package is rejected, never listed with a diagnosis text cut short.
        var tooLong: String?
    }
    private var package: Package?
    private var legendCode: String?
    private var legendLine = 0
    private var capturing: String?
    /// A strong `let`, not unowned: no cycle outlives the parse (the parser
    /// drops its handler when it returns), and every use of an unowned
    /// reference copies out a retained one.
    let parser: StreamingXMLParser

    init(output: FeedOutput<ReimbursementEntry>, parser: StreamingXMLParser) {
        self.output = output
        self.parser = parser
    }

    func startElement(_ name: XMLName, attributes: XMLAttributes, line: Int) {
        switch true {
        case name.is("reimbursementList"):
            if let date = attributes.value("validFrom")?.trimmed, MappedDateFormat("yyyy-MM-dd")?.parse(date, in: ExportTimestamp.tallinn) != nil {
                validFrom = date
            }
            if let code = attributes.value("currency")?.trimmed { currency = code.uppercased() }
        case name.is("abbr"):
            legendCode = attributes.value("code")?.trimmed ?? ""
            legendLine = line
            begin("abbr")
        case name.is("package"):
            package = Package(code: attributes.value("code")?.trimmed ?? "", line: line)
        case name.is("limitPrice") && package != nil:
            begin("limitPrice")
        case name.is("tier") && package != nil:
            package?.tiers.append((attributes.value("rate")?.trimmed ?? "", nil, nil, line))
        case name.is("diagnoses") && package != nil:
            begin("diagnoses")
        case name.is("info") && package != nil:
            begin("info")
        default:
            break
        }
    }

    private func begin(_ field: String) {
        capturing = field
        parser.text.begin()
    }

    func endElement(_ name: XMLName) {
        if let field = capturing {
            parser.text.end()
            let value = parser.text.trimmedString
            capturing = nil
            if parser.text.overflowed {
                if field == "abbr" {
                    let code = legendCode ?? ""
                    legendCode = nil
                    output.reject(line: legendLine, key: code, reason: .lineTooLong,
                                  message: "abbr is longer than \(XMLTextCapture.maxBytes) bytes", field: "abbr")
                    return
                }
                if package?.tooLong == nil { package?.tooLong = field == "limitPrice" ? field : "tier.\(field)" }
            }
            switch field {
            case "abbr": finishLegend(value)
            case "limitPrice": package?.limit = value
            case "diagnoses": if !(package?.tiers.isEmpty ?? true) { package!.tiers[package!.tiers.count - 1].diagnoses = value }
            case "info": if !(package?.tiers.isEmpty ?? true) { package!.tiers[package!.tiers.count - 1].info = value }
            default: break
            }
            return
        }
        if name.is("package"), let package {
            finish(package)
            self.package = nil
        }
    }

    private func finishLegend(_ value: String) {
        guard let code = legendCode else { return }
        legendCode = nil
        if code.isEmpty {
            output.reject(line: legendLine, key: "", reason: .missingField, message: "abbr has no code", field: "code")
        } else if !legendCodes.insert(code).inserted {
            output.reject(line: legendLine, key: code, reason: .duplicateKey, message: "abbreviation \(code) appears earlier in the legend", field: "code")
        } else {
            output.accept(.legend(code: code, text: value, line: legendLine))
        }
    }

    private func finish(_ package: Package) {
        let code = package.code
        func reject(_ reason: RejectReason, _ field: String, _ message: String) {
            output.reject(line: package.line, key: code, reason: reason, message: message, field: field)
        }
        if let field = package.tooLong { return reject(.lineTooLong, field, "\(field) is longer than \(XMLTextCapture.maxBytes) bytes") }
        guard PackageCode.isValid(code) else { return reject(.badPackageCode, "code", "package code '\(code)' fails its check digit") }
        var limit: Int64?
        if let text = package.limit, !text.isEmpty {
            guard let amount = ExactDecimal.parse(text, decimalSeparator: ".", maxFractionDigits: 4)
                    ?? ExactDecimal.parse(text, decimalSeparator: ",", maxFractionDigits: 4),
                  let cents = try? Money.cents(amount, in: .eur) else {
                return reject(.badPrice, "limitPrice", "limit price '\(text)' is not a euro amount")
            }
            limit = cents
        }
        var tiers: [ReimbursementTier] = []
        var rates = Set<Int>()
        for tier in package.tiers {
            guard let rate = Int(tier.rate), ReimbursementListAdapter.rates.contains(rate) else {
                return reject(.badTier, "tier.rate", "tier rate '\(tier.rate)' is not 50, 75 or 100 (90 % is derived from 75 %)")
            }
            guard rates.insert(rate).inserted else { return reject(.badTier, "tier.rate", "rate \(rate) is listed twice") }
            tiers.append(ReimbursementTier(rate: rate, diagnoses: tier.diagnoses, info: tier.info))
        }
        guard !tiers.isEmpty else { return reject(.badTier, "tier", "package lists no tier") }
        guard seen.insert(code).inserted else { return reject(.duplicateKey, "code", "package \(code) appears earlier in the list") }
        output.accept(.package(code: code, limitCents: limit, tiers: tiers, line: package.line))

        for (tier, source) in zip(tiers, package.tiers) {
            guard let diagnoses = tier.diagnoses, !diagnoses.isEmpty else { continue }
            let infoMarkers = Self.markers(in: tier.info)
            for item in DiagnosisNotation.parse(diagnoses) {
                switch item {
                case .range(let range):
                    if let marker = range.marker, !infoMarkers.contains(marker) {
                        output.warn(line: source.line, key: code, code: .unknownMarker,
                                    message: "diagnosis \(range.from) carries marker \(marker) but no info line starts with it")
                    }
                    output.accept(.diagnosis(packageCode: code, rate: tier.rate, range: range, line: source.line))
                case .invalid(let text, let reason):
                    output.reject(line: source.line, key: "\(code)/\(tier.rate)", reason: .badDiagnosis,
                                  message: "diagnosis item '\(text)': \(reason); the package stays", field: "diagnoses")
                }
            }
        }
    }

    /// The markers the info lines start with (`*rv …`, `**rv …`).
    static func markers(in info: String?) -> Set<String> {
        guard let info else { return [] }
        var found = Set<String>()
        for line in info.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmed
            if let marker = DiagnosisNotation.markers.first(where: { trimmed.hasPrefix($0) }) { found.insert(marker) }
        }
        return found
    }
}
