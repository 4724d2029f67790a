import Foundation
import IngestCore

/// RAX stock exports of the legacy pharmacies (FEEDS.md §1): Windows-1257
/// text, `;`-separated and never quoted, `H` header, `I` items, `T` trailer.
///
/// The trailer is what tells a complete export from a truncated download, so
/// nothing of a file whose trailer is missing or disagrees is loaded.
public struct RAXStockAdapter: StockFeedAdapter {
    public let name = "rax"
    public let summary = "RAX stock export (FEEDS.md §1), versions 3.1 and 3.2, Windows-1257; recognised by a first line starting `H;RAX;`"
    public let maxLineLength: Int

    private let decoder = Windows1257.shared
    static let supportedVersions = ["3.1": 9, "3.2": 10]
    /// The fields of an `I` record in order: 3.1 lacks the package code.
    static let fields31: [ItemField] = [.recordType, .aptcode, .gtin, .name, .producer, .atc, .activeSubstance, .price, .quantity]
    static let fieldNames = StockFieldRules.FieldNames(packageCode: "package code", producer: "producer", activeSubstance: "active substance")
    static let fields32: [ItemField] = [.recordType, .aptcode, .packageCode, .gtin, .name, .producer, .atc, .activeSubstance, .price, .quantity]

    public init(maxLineLength: Int = 64 * 1024) {
        self.maxLineLength = maxLineLength
    }

    public func recognises(_ file: FeedFile) -> Bool {
        file.firstLine.starts(with: Array("H;RAX;".utf8))
    }

    /// What the `H` record declares.
    struct HeaderLine {
        var header: StockFeedHeader
        var version: String
        var itemFieldCount: Int?
        var currency: Currency?
    }

    public func readHeader(_ file: FeedFile) throws(FeedFailure) -> StockFeedHeader {
        let line = Array(file.firstLine)
        let result = line.withUnsafeBufferPointer { parseHeader($0) }
        return try result.get().header
    }

    func parseHeader(_ line: UnsafeBufferPointer<UInt8>) -> Result<HeaderLine, FeedFailure> {
        let fields = ByteFields(line, separator: UInt8(ascii: ";"))
        guard fields.count == 7, fields.trimmed(0).asciiString == "H", fields.trimmed(1).asciiString == "RAX" else {
            return .failure(FeedFailure(reason: .badHeader, message: "header must be H;RAX;version;pharmacy id;name;exported at;currency (7 fields), found \(fields.count)", line: 1))
        }
        let version = fields.trimmed(2).asciiString
        let pharmacyID = fields.trimmed(3).asciiString
        guard !pharmacyID.isEmpty else {
            return .failure(FeedFailure(reason: .badHeader, message: "header has no pharmacy id", line: 1))
        }
        guard let name = decoder.decode(fields.trimmed(4)) else {
            return .failure(FeedFailure(reason: .badEncoding, message: "pharmacy name is not Windows-1257 text", line: 1))
        }
        let exportedText = fields.trimmed(5).asciiString
        guard let exportedAt = ExportTimestamp.parseCompact(exportedText) else {
            return .failure(FeedFailure(reason: .badHeader, message: "export time '\(exportedText)' is not YYYYMMDDTHHMM", line: 1))
        }
        let currencyText = fields.trimmed(6).asciiString
        let currency = Currency(code: currencyText).flatMap { [.eur, .eek].contains($0) ? $0 : nil }
        return .success(HeaderLine(
            header: StockFeedHeader(pharmacyID: pharmacyID, pharmacyName: name.isEmpty ? nil : name,
                                    exportedAt: exportedAt, format: "RAX \(version)"),
            version: version,
            itemFieldCount: Self.supportedVersions[version],
            currency: currency))
    }

    public func parse(_ file: FeedFile, into output: inout FeedOutput<StockOffer>) -> StockFeedHeader? {
        var state = ParseState()
        do {
            try LineReader(file: file, maxLineLength: maxLineLength).forEachLine { line, number in
                try consume(line, number: number, state: &state, output: &output)
            }
        } catch let failure as FeedFailure {
            output.failure = failure
            return state.header?.header
        } catch {
            output.failure = FeedFailure(reason: .unreadable, message: "\(error)")
            return state.header?.header
        }
        if output.failure == nil {
            output.failure = state.encodingProblem() ?? state.trailerProblem(lastLine: state.lastLine)
        }
        return state.header?.header
    }

    private struct ParseState {
        var header: HeaderLine?
        var itemLines = 0
        var quantitySum: Int128 = 0
        var trailer: (items: Int128, quantity: Int128, line: Int)?
        var lastLine = 0
        /// `ByteFields`' storage, reused from line to line.
        var fieldRanges: [Range<Int>] = []
        /// The first line with a multi-byte UTF-8 sequence, and whether any
        /// line has bytes that are not UTF-8: a file that is UTF-8 throughout
        /// was saved in the wrong encoding and would be stored garbled
        /// (`Å\u{A0}AMPOON`), its names unsearchable.
        var firstUTF8Line: Int?
        var notUTF8 = false

        mutating func noteEncoding(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) {
            guard !notUTF8, bytes.contains(where: { $0 >= 0x80 }) else { return }
            if UTF8Text.isValid(bytes) {
                // A stray BOM alone (U+FEFF) garbles nothing: it is rejected on its own as `bad_encoding`.
                let letters = String(decoding: bytes, as: UTF8.self).unicodeScalars.contains { $0.value > 0x7F && $0.value != 0xFEFF }
                if firstUTF8Line == nil, letters { firstUTF8Line = line }
            } else {
                notUTF8 = true
            }
        }

        func encodingProblem() -> FeedFailure? {
            guard let line = firstUTF8Line, !notUTF8 else { return nil }
            return FeedFailure(reason: .wrongEncoding,
                               message: "the file is UTF-8 (multi-byte sequences from line \(line) on, and no byte that is not UTF-8); RAX exports are Windows-1257, so its text would be stored garbled",
                               line: line)
        }

        func trailerProblem(lastLine: Int) -> FeedFailure? {
            guard let trailer else {
                return FeedFailure(reason: .trailerMismatch, message: "trailer (T record) missing: the file is truncated", line: lastLine)
            }
            if trailer.items != Int128(itemLines) || trailer.quantity != quantitySum {
                return FeedFailure(
                    reason: .trailerMismatch,
                    message: "trailer says \(trailer.items) items with quantity \(trailer.quantity), file has \(itemLines) items with quantity \(quantitySum)",
                    line: trailer.line)
            }
            return nil
        }
    }

    private func consume(_ line: LineReader.Line, number: Int, state: inout ParseState, output: inout FeedOutput<StockOffer>) throws {
        state.lastLine = number
        guard case .text(var bytes) = line else {
            // Unreadable, but most likely an item: it counts as one so the
            // trailer check sees the damage.
            if case .tooLong(let length) = line {
                state.itemLines += 1
                output.reject(line: number, key: "", reason: .lineTooLong, message: "line of \(length) bytes exceeds the limit of \(maxLineLength)")
            }
            return
        }
        if number == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            bytes = UnsafeBufferPointer(rebasing: bytes[3...]) // a BOM some tools add
        }
        state.noteEncoding(bytes, line: number)
        if number == 1 {
            switch parseHeader(bytes) {
            case .success(let header):
                state.header = header
                if header.itemFieldCount == nil {
                    output.failure = FeedFailure(reason: .unsupportedVersion, message: "RAX format version '\(header.version)' is not 3.1 or 3.2", line: 1)
                } else if header.currency == nil {
                    output.failure = FeedFailure(reason: .unsupportedCurrency, message: "currency must be EEK or EUR", line: 1)
                }
            case .failure(let failure):
                output.failure = failure
            }
            return
        }
        if bytes.allSatisfy({ $0 == 32 || $0 == 9 }) { return } // blank line: not a record
        if let trailer = state.trailer {
            throw FeedFailure(reason: .trailerMismatch, message: "data after the trailer of line \(trailer.line)", line: number)
        }
        let fields = ByteFields(bytes, separator: UInt8(ascii: ";"), reusing: &state.fieldRanges)
        /// The record's key as written, for rejects: every reject names it when it can be read.
        func key() -> String { fields.count > 1 ? decoder.decode(fields.trimmed(1))?.trimmed ?? "" : "" }
        switch fields.trimmed(0).asciiString {
        case "I":
            state.itemLines += 1
            if let quantity = fields.trimmed(fields.count - 1).parseInteger(allowNegative: true) {
                state.quantitySum += quantity
            }
            if Self.containsUTF8BOM(bytes) {
                output.reject(line: number, key: key(), reason: .badEncoding, message: "a UTF-8 byte order mark inside a Windows-1257 record")
                return
            }
            guard let header = state.header, output.failure == nil,
                  let fieldCount = header.itemFieldCount, let currency = header.currency else {
                // The feed is rejected whole anyway; the record is counted.
                output.reject(line: number, key: key(), reason: output.failure?.reason ?? .badHeader, message: "feed header is invalid")
                return
            }
            readItem(fields, fieldCount: fieldCount, currency: currency, line: number, state: &state, output: &output)
        case "T":
            guard fields.count == 3,
                  let items = fields.trimmed(1).parseInteger(allowNegative: false),
                  let quantity = fields.trimmed(2).parseInteger(allowNegative: true) else {
                throw FeedFailure(reason: .trailerMismatch, message: "trailer must be T;<items>;<quantity sum>", line: number)
            }
            state.trailer = (items, quantity, number)
        case "H":
            throw FeedFailure(reason: .badHeader, message: "second header record", line: number)
        default:
            output.reject(line: number, key: key(), reason: .badRecordType, message: "record type must be H, I or T", field: "record type")
        }
    }

    /// memchr for the lead byte first: the byte-by-byte scan of every line
    /// was a twentieth of a RAX parse, and 0xEF (ļ) is rare in cp1257 text.
    static func containsUTF8BOM(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, bytes.count >= 3 else { return false }
        var index = 0
        let lastStart = bytes.count - 2
        while index < lastStart, let found = memchr(base + index, 0xEF, lastStart - index) {
            let position = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
            if bytes[position + 1] == 0xBB && bytes[position + 2] == 0xBF { return true }
            index = position + 1
        }
        return false
    }

    private func readItem(
        _ fields: ByteFields, fieldCount: Int, currency: Currency, line: Int,
        state: inout ParseState, output: inout FeedOutput<StockOffer>
    ) {
        /// The record's key as written, for rejects only: decoded when one is made.
        func rawKey() -> String { fields.count > 1 ? (decoder.decode(fields.trimmed(1)) ?? "") : "" }
        func reject(_ reason: RejectReason, _ field: String, _ message: String) {
            output.reject(line: line, key: rawKey().uppercased(), reason: reason, message: message, field: field)
        }
        guard fields.count == fieldCount else {
            reject(.badFieldCount, "record", "item record has \(fields.count) fields, version \(state.header!.version) has \(fieldCount)")
            return
        }
        // 3.2 has the package code at index 2; 3.1 lacks it, shifting the rest left.
        let shift = fieldCount == 10 ? 1 : 0
        let fieldsInOrder = shift == 1 ? Self.fields32 : Self.fields31
        // Every field must be Windows-1257 text, checked in field order. Only
        // the text fields become strings; the price and quantity are read
        // from their bytes, so no array of strings is built per record.
        var text = ItemText()
        for (index, field) in fieldsInOrder.enumerated() {
            let bytes = fields.trimmed(index)
            let readable: Bool
            switch field {
            case .recordType, .price, .quantity:
                readable = decoder.isText(bytes)
            case .aptcode, .packageCode, .gtin, .name, .producer, .atc, .activeSubstance:
                let decoded = decoder.decode(bytes)
                if let decoded { text.store(decoded, as: field) }
                readable = decoded != nil
            }
            guard readable else {
                reject(.badEncoding, field.rawValue, "\(field.rawValue) holds a byte that is not Windows-1257 text (or a NUL)")
                return
            }
        }
        let aptcode = text.aptcode.uppercasedCode
        guard !aptcode.isEmpty else { return reject(.missingField, "aptcode", "aptcode is empty") }
        let description: StockFieldRules.Description
        do {
            description = try StockFieldRules.description(
                packageCode: shift == 1 ? text.packageCode : nil, gtin: text.gtin, name: text.name,
                producer: text.producer, activeSubstance: text.substance, fields: Self.fieldNames)
        } catch {
            return output.reject(error, line: line, key: aptcode)
        }
        let priceText = fields.trimmed(7 + shift)
        guard let price = ExactDecimal.parse(priceText, decimalSeparator: UInt8(ascii: ","), maxFractionDigits: 2) else {
            return reject(.badPrice, "price", "price '\(decoder.decode(priceText) ?? "")' is not a decimal-comma amount with up to 2 decimals")
        }
        let cents: Int64
        do {
            cents = try Money.cents(price, in: currency)
        } catch {
            return reject(.badPrice, "price", "price '\(decoder.decode(priceText) ?? "")' is out of range")
        }
        let quantityText = fields.trimmed(8 + shift)
        guard let quantity = quantityText.parseInteger(allowNegative: false),
              quantity <= Int128(Int64.max) else {
            return reject(.badQuantity, "quantity", "quantity '\(decoder.decode(quantityText) ?? "")' is not a non-negative integer")
        }
        guard output.isFirstOccurrence(aptcode) else {
            return output.reject(StockFieldRules.duplicate(aptcode), line: line, key: aptcode)
        }
        output.warnIfRestricted(description.gtin, line: line, key: aptcode)
        func optional(_ value: String) -> String? { value.isEmpty ? nil : value }
        output.accept(StockOffer(
            aptcode: aptcode, packageCode: description.packageCode, gtin: description.gtin?.gtin, name: description.name,
            producer: optional(text.producer), atc: optional(text.atc.uppercasedCode),
            activeSubstance: optional(text.substance), priceCents: cents, quantity: Int64(quantity), line: line))
    }

    /// The fields of an `I` record, named as messages name them.
    enum ItemField: String {
        case recordType = "record type", aptcode, packageCode = "package code", gtin, name, producer, atc
        case activeSubstance = "active substance", price, quantity
    }

    /// The text fields of one `I` record, decoded.
    private struct ItemText {
        var aptcode = ""
        var packageCode = ""
        var gtin = ""
        var name = ""
        var producer = ""
        var atc = ""
        var substance = ""

        mutating func store(_ value: String, as field: ItemField) {
            switch field {
            case .aptcode: aptcode = value
            case .packageCode: packageCode = value
            case .gtin: gtin = value
            case .name: name = value
            case .producer: producer = value
            case .atc: atc = value
            case .activeSubstance: substance = value
            case .recordType, .price, .quantity: break
            }
        }
    }
}

extension RejectReason {
    /// A Windows-1257 format (RAX) whose file is valid multi-byte UTF-8.
    public static let wrongEncoding = RejectReason(rawValue: "wrong_encoding")
}
