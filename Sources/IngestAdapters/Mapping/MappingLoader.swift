import Foundation
import IngestCore
import TOMLKit

/// Reads `*.mapping.toml` files strictly: an unknown section or key, a
/// missing required field, or a value of the wrong shape is a `MappingError`
/// naming the file and the key. A typo must fail loudly before any feed is
/// read, not silently empty a table.
public enum MappingLoader {
    public static let suffix = ".mapping.toml"
    /// A column name or path longer than this is a mistake, not a header
    /// (a 400 KB name once made a run take 7 s and 984 MB: it is copied into every reject).
    static let longestName = 1024

    static let sections: [String: Set<String>] = [
        "match": ["filename", "required_columns"],
        "format": ["type", "delimiter", "quote", "encoding", "header", "decimal_separator", "date_format", "timezone",
                   "record_element", "namespace", "missing_values", "record"],
        "missing_values": Set(CanonicalField.allCases.map(\.rawValue)),
        "filter": ["skip_when"],
        "limits": ["max_reject_rate"],
        "prices": ["currency", "currency_column", "includes_vat", "vat_rate", "vat_rate_column", "price_unit", "thousands"],
        "pharmacy": ["id", "id_from_filename"],
        "export": ["date_from_filename", "date", "date_per_row"],
        "columns": Set(CanonicalField.allCases.map(\.rawValue)),
        "values": Set(CanonicalField.allCases.map(\.rawValue)),
        "constants": Set(CanonicalField.allCases.map(\.rawValue)),
    ]
    /// Fields that have a section of their own for a value every record shares.
    static let ownSections: [CanonicalField: String] = [
        .pharmacyID: "[pharmacy] id", .exportedAt: "[export] date", .currency: "[prices] currency", .vatRate: "[prices] vat_rate",
    ]

    /// Every mapping in `directory`, sorted by name. A missing directory has none.
    public static func loadAll(directory: String) throws(MappingError) -> [StockFeedMapping] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var mappings: [StockFeedMapping] = []
        for name in names.sorted() where name.hasSuffix(suffix) {
            mappings.append(try load(path: "\(directory)/\(name)"))
        }
        return mappings
    }

    public static func load(path: String) throws(MappingError) -> StockFeedMapping {
        let fileName = (path as NSString).lastPathComponent
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw MappingError(file: fileName, key: nil, message: "cannot be read as UTF-8 text")
        }
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let error as TOMLParseError {
            throw MappingError(file: fileName, key: nil, message: "not valid TOML at line \(error.source.begin.line): \(error.description)")
        } catch {
            throw MappingError(file: fileName, key: nil, message: "not valid TOML: \(error)")
        }
        return try MappingTable(file: fileName, table: table).mapping(name: String(fileName.dropLast(suffix.count)))
    }

    // The mapping, read section by section from its table.
}

extension MappingTable {
    /// The whole mapping, section by section.
    func mapping(name: String) throws(MappingError) -> StockFeedMapping {
        let kind = try mappingKind()
        try checkKnownKeys(kind)
        let constants = try constants()
        let lists = try columnLists(constants: constants)
        var columns = try columnLists(constants: constants).mapValues { $0[0] }
        let type = try string("format", "type") ?? "csv"
        guard let rules = Self.layouts.first(where: { $0.types.contains(type) }) else {
            let types = Self.layouts.flatMap { $0.types }.map { "\"\($0)\"" }
            throw fail("format.type", "must be \(types.dropLast().joined(separator: ", ")) or \(types.last ?? ""), not '\(type)'")
        }
        let (layout, requiredColumns) = try rules.layout(type: type, from: self, columns: columns)
        let glob = try string("match", "filename")
        if glob == nil, requiredColumns.isEmpty, let unmatched = rules.unmatched(in: self) { throw unmatched }
        let text = try textFormat()
        // A registry or register has no prices, and no pharmacy of its own.
        let (currency, vatRate) = kind == .stock ? try prices(columns: &columns) : (.fixed("EUR"), nil)
        let pharmacyID = kind == .stock ? try pharmacy(columns: columns) : .fixed("")
        let exported = kind == .registry ? .fixed("") : try exportedAt(columns: columns)
        var mapping = StockFeedMapping(
            name: name, file: file, fileNameGlob: glob, requiredColumns: requiredColumns, layout: layout,
            encoding: text.encoding, decimalSeparator: text.decimal, dateFormat: text.dateFormat, timeZone: text.zone,
            currency: currency, vatRate: vatRate, pharmacyID: pharmacyID, exportedAt: exported,
            columns: columns)
        mapping.kind = kind
        mapping.constants = constants
        let written = try translations()
        mapping.translations = written.mapValues { pairs in
            Dictionary(uniqueKeysWithValues: pairs.map { (MappedFieldValue.lookupKey($0.written), $0.meant) })
        }
        try checkWrittenValues(mapping, translations: written)
        mapping.joinedColumns = lists.filter { $0.value.count > 1 }
        mapping.missingValues = try missingValues()
        mapping.skipWhen = try skipConditions()
        mapping.maxRejectRatePercent = try maxRejectRate()
        mapping.exportDatePerRow = try bool("export", "date_per_row") ?? false
        if let date = try string("export", "date") { mapping.exportTimeOrigin = .init(rawValue: date) }
        switch try string("prices", "price_unit") ?? "major" {
        case "major": mapping.pricesInMinorUnits = false
        case "minor": mapping.pricesInMinorUnits = true
        case let other: throw fail("prices.price_unit", "must be \"major\" (euros, pounds) or \"minor\" (cents, pence), not '\(other)'")
        }
        if let thousands = try string("prices", "thousands") {
            guard [",", ".", " ", "'"].contains(thousands), let scalar = thousands.unicodeScalars.first else {
                throw fail("prices.thousands", "must be \",\", \".\", \" \" or \"'\", not '\(thousands)'")
            }
            guard scalar.value != UInt32(mapping.decimalSeparator) else { throw fail("prices.thousands", "must differ from the decimal separator") }
            mapping.thousandsSeparator = scalar
        }
        if mapping.exportDatePerRow, case .column = mapping.exportedAt {} else if mapping.exportDatePerRow {
            throw fail("export.date_per_row", "applies to an exported_at column only")
        }
        try rules.check(columns: lists, skipWhen: mapping.skipWhen, layout: layout, in: self)
        return mapping
    }

    /// `[format] missing_values` for every field, `[missing_values] FIELD` for one; "" always.
    private func missingValues() throws(MappingError) -> [Set<String>] {
        var common: Set<String> = [""]
        if let value = try section("format")?["missing_values"] {
            common.formUnion(try strings(value, key: "format.missing_values"))
        }
        var perField = Array(repeating: common, count: CanonicalField.allCases.count)
        if let fields = try section("missing_values") {
            for key in fields.keys {
                guard let value = fields[key] else { continue }
                perField[CanonicalField(rawValue: key)!.position].formUnion(try strings(value, key: "missing_values.\(key)"))
            }
        }
        return perField
    }

    /// `[filter] skip_when = [{ column = "INVALID", equals = "1" }, …]`.
    private func skipConditions() throws(MappingError) -> [StockFeedMapping.SkipCondition] {
        guard let value = try section("filter")?["skip_when"] else { return [] }
        let key = "filter.skip_when"
        guard let array = value.array else { throw fail(key, "must be an array of tables such as { column = \"INVALID\", equals = \"1\" }") }
        var conditions: [StockFeedMapping.SkipCondition] = []
        for element in array {
            guard let table = element.table else { throw fail(key, "each condition is a table such as { column = \"INVALID\", equals = \"1\" }") }
            for inner in table.keys where !["column", "path", "equals", "not_equals", "matches"].contains(inner) {
                throw fail(key, "unknown key \(inner) in a condition (column or path, with equals, not_equals or matches)")
            }
            let columns = ["column", "path"].compactMap { table[$0] }
            let fixed = try string("format", "type") == "fixed"
            guard columns.count == 1,
                  let column = fixed ? range(columns[0]) : columns[0].string.map(\.trimmed) ?? columns[0].int.map(String.init),
                  !column.isEmpty else {
                throw fail(key, fixed ? "each condition names one character range, column = [first, last]" : "each condition names one column (or path)")
            }
            let tests = ["equals", "not_equals", "matches"].compactMap { name in table[name].map { (name, $0) } }
            guard tests.count == 1, let operand = tests[0].1.string else {
                throw fail(key, "each condition has one of equals, not_equals or matches, with a string")
            }
            let test: StockFeedMapping.SkipCondition.Test
            switch tests[0].0 {
            case "equals": test = .equals(operand.trimmed)
            case "not_equals": test = .notEquals(operand.trimmed)
            default:
                guard (try? NSRegularExpression(pattern: operand)) != nil else { // an invalid pattern is the error to report
                    throw fail(key, "'\(operand)' is not a regular expression")
                }
                test = .matches(operand)
            }
            conditions.append(.init(column: column, test: test))
        }
        return conditions
    }

    /// `[limits] max_reject_rate`: a percentage.
    private func maxRejectRate() throws(MappingError) -> Int? {
        guard let value = try section("limits")?["max_reject_rate"] else { return nil }
        guard let percent = value.int, (0...100).contains(percent) else { throw fail("limits.max_reject_rate", "must be a whole percentage from 0 to 100") }
        return percent
    }

    /// Every section and key is one this loader knows: a typo fails here.
    /// The top-level `kind`: `stock` (the default), `registry` (FEEDS.md §5) or `register` (§11).
    private func mappingKind() throws(MappingError) -> MappingKind {
        guard let value = table["kind"] else { return .stock }
        guard let text = value.string, let kind = MappingKind(rawValue: text) else {
            throw fail("kind", "must be \"stock\", \"registry\" or \"register\"")
        }
        return kind
    }

    private func checkKnownKeys(_ kind: MappingKind) throws(MappingError) {
        let fields = Set(kind.fields.map(\.rawValue))
        var sections = MappingLoader.sections
        sections["columns"] = fields
        sections["missing_values"] = fields
        sections["values"] = fields
        sections["constants"] = fields
        if kind != .stock {
            // What a registry or register leaves out: prices, a pharmacy, and for a registry a date.
            sections["prices"] = nil
            sections["pharmacy"] = nil
            if kind == .registry { sections["export"] = nil }
        }
        for key in table.keys where key != "kind" {
            guard let allowed = sections[key] else {
                throw fail(key, "unknown section for a \(kind) mapping; known: \(sections.keys.sorted().joined(separator: ", "))")
            }
            guard let section = table[key]?.table else { throw fail(key, "must be a table") }
            for inner in section.keys where !allowed.contains(inner) {
                let hint = ["columns", "missing_values", "values", "constants"].contains(key)
                    ? "not a field of a \(kind) mapping; known: \(kind.fields.map(\.rawValue).joined(separator: ", "))" : "unknown key"
                throw fail("\(key).\(inner)", hint)
            }
        }
    }

    /// `[constants] field = "value"`: the same value for every record
    /// (FEEDS.md §12.1), checked as the field's own values are. A field
    /// takes a constant or columns, not both; the pharmacy, the export
    /// date, the currency and the VAT rate keep their own sections.
    private func constants() throws(MappingError) -> [CanonicalField: String] {
        guard let table = try section("constants") else { return [:] }
        var constants: [CanonicalField: String] = [:]
        for key in table.keys.sorted() {
            let field = CanonicalField(rawValue: key)!
            if let own = MappingLoader.ownSections[field] { throw fail("constants.\(key)", "is given by \(own), not a constant") }
            guard let text = table[key]?.string?.trimmed, !text.isEmpty else {
                throw fail("constants.\(key)", "must be a non-empty string")
            }
            if try section("columns")?[key] != nil { throw fail("constants.\(key)", "give a constant or columns for \(key), not both") }
            constants[field] = text
        }
        return constants
    }

    /// `[values] field = { "as written" = "as meant" }`: translations per
    /// field, looked up ignoring case (FEEDS.md §12.1); every target must
    /// be a valid value of its field, or no record could ever use it.
    private func translations() throws(MappingError) -> [CanonicalField: [(written: String, meant: String)]] {
        guard let table = try section("values") else { return [:] }
        var translations: [CanonicalField: [(written: String, meant: String)]] = [:]
        for key in table.keys.sorted() {
            let field = CanonicalField(rawValue: key)!
            guard let pairs = table[key]?.table else {
                throw fail("values.\(key)", "must be a table of values as written and as meant, such as { \"Retseptiravim\" = \"Rx\" }")
            }
            var lookup: [String: String] = [:]
            var listed: [(written: String, meant: String)] = []
            for written in pairs.keys.sorted() {
                guard let meant = pairs[written]?.string?.trimmed, !meant.isEmpty else {
                    throw fail("values.\(key)", "'\(written)' must translate to a non-empty string")
                }
                guard lookup.updateValue(meant, forKey: MappedFieldValue.lookupKey(written)) == nil else {
                    throw fail("values.\(key)", "'\(written)' is listed twice (values are compared ignoring case)")
                }
                listed.append((written, meant))
            }
            translations[field] = listed
        }
        return translations
    }

    /// Every constant and translation target is a value its field takes.
    private func checkWrittenValues(_ mapping: StockFeedMapping,
                                    translations: [CanonicalField: [(written: String, meant: String)]]) throws(MappingError) {
        func problem(_ text: String, _ field: CanonicalField) -> String? {
            MappedFieldValue.problem(text, of: field, decimalSeparator: mapping.decimalSeparator,
                                     dateFormat: mapping.dateFormat, timeZone: mapping.timeZone)
        }
        for (field, text) in mapping.constants.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            if let problem = problem(text, field) { throw fail("constants.\(field.rawValue)", "'\(text)' \(problem)") }
        }
        for (field, pairs) in translations.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            for (written, meant) in pairs {
                if let problem = problem(meant, field) {
                    throw fail("values.\(field.rawValue)", "'\(written)' translates to '\(meant)', which \(problem)")
                }
            }
        }
    }

    /// `[columns]` with every field's columns: one, or a list joined with
    /// one space (FEEDS.md §12); a field with a constant needs none.
    func columnLists(constants: [CanonicalField: String] = [:]) throws(MappingError) -> [CanonicalField: [String]] {
        guard let columnTable = try section("columns") else { throw fail("columns", "missing: map at least aptcode, name and price (and quantity, unless the feed is a price list)") }
        var columns: [CanonicalField: [String]] = [:]
        if try string("format", "type") == "fixed" { return try rangeLists(columnTable, constants: constants) }
        /// Names as the file writes them (FEEDS.md §12): `"Bezeichnung "` and
        /// `Bezeichnung` both name the header cell `Bezeichnung `, trimmed on both sides.
        func column(_ value: TOMLValueConvertible) -> String? {
            if let text = value.string, !text.trimmed.isEmpty, text.utf8.count <= MappingLoader.longestName { return text.trimmed }
            if let number = value.int, number >= 1 { return String(number) }
            return nil
        }
        for key in columnTable.keys {
            let field = CanonicalField(rawValue: key)!
            guard let value = columnTable[key] else { continue }
            if let list = value.array {
                var names: [String] = []
                for element in list {
                    guard let name = column(element) else { throw fail("columns.\(key)", "each column of a list must be a column name, number or XML path") }
                    names.append(name)
                }
                guard !names.isEmpty else { throw fail("columns.\(key)", "an empty list names no column") }
                columns[field] = names
            } else if let name = column(value) {
                columns[field] = [name]
            } else {
                throw fail("columns.\(key)", "must be a column name (at most \(MappingLoader.longestName) bytes), a 1-based column number, an XML path, or a list of them")
            }
        }
        try checkRequired(columns, constants: constants)
        return columns
    }

    private func checkRequired(_ columns: [CanonicalField: [String]], constants: [CanonicalField: String]) throws(MappingError) {
        let kind = try mappingKind()
        for field in kind.required where columns[field] == nil && constants[field] == nil {
            throw fail("columns.\(field.rawValue)", "missing: every \(kind) record needs \(field.rawValue) (a column, or a value in [constants])")
        }
    }

    /// A range `[first, last]` (fixed-width files) as its column key, or nil.
    func range(_ value: TOMLValueConvertible) -> String? {
        guard let pair = value.array, pair.count == 2, let first = pair[0].int, let last = pair[1].int else { return nil }
        return FixedWidthRange(first: first, last: last)?.key
    }

    /// `[columns]` of a fixed-width file: each field a range `[1, 7]`, or a list of ranges joined.
    private func rangeLists(_ columnTable: TOMLTable, constants: [CanonicalField: String]) throws(MappingError) -> [CanonicalField: [String]] {
        var columns: [CanonicalField: [String]] = [:]
        for key in columnTable.keys {
            guard let value = columnTable[key] else { continue }
            if let single = range(value) {
                columns[CanonicalField(rawValue: key)!] = [single]
                continue
            }
            var keys: [String] = []
            for element in value.array ?? [] {
                guard let part = range(element) else { keys = []; break }
                keys.append(part)
            }
            guard !keys.isEmpty else {
                throw fail("columns.\(key)", "must be a character range [first, last] (1-based, inclusive, first ≤ last) or a list of them, not \(value)")
            }
            columns[CanonicalField(rawValue: key)!] = keys
        }
        try checkRequired(columns, constants: constants)
        return columns
    }

    /// `[format]`'s text settings: encoding, decimal separator, date pattern, time zone.
    private func textFormat() throws(MappingError) -> (encoding: String, decimal: UInt8, dateFormat: MappedDateFormat, zone: TimeZone) {
        let encodingName = try string("format", "encoding") ?? "UTF-8"
        // iconv takes "" for the locale's charset: a feed's meaning must not hang on the machine's locale.
        guard !encodingName.trimmed.isEmpty, TextTranscoder.isUTF8(encodingName) || TextTranscoder.knows(encodingName) else {
            throw fail("format.encoding", "'\(encodingName)' is not a charset iconv knows (UTF-8, windows-1252, iso-8859-13, utf-16, …)")
        }
        let encoding = encodingName
        let decimal = try singleByte("format", "decimal_separator", default: ".")
        guard decimal == UInt8(ascii: ",") || decimal == UInt8(ascii: ".") else {
            throw fail("format.decimal_separator", "must be \",\" or \".\"")
        }
        let datePattern = try string("format", "date_format") ?? "yyyy-MM-dd"
        guard let dateFormat = MappedDateFormat(datePattern) else {
            throw fail("format.date_format", "'\(datePattern)' is not a pattern of yyyy, MM, dd, HH, mm, ss")
        }
        let zoneName = try string("format", "timezone") ?? "Europe/Tallinn"
        guard let zone = TimeZone(identifier: zoneName) else { throw fail("format.timezone", "unknown time zone '\(zoneName)'") }
        return (encoding, decimal, dateFormat, zone)
    }

    /// `[prices]`: the currency and, for prices without VAT, the VAT rate, fixed or from a column.
    private func prices(columns: inout [CanonicalField: String]) throws(MappingError) -> (StockFeedMapping.Source, StockFeedMapping.Source?) {
        let currency: StockFeedMapping.Source
        let currencyColumnKey = try string("prices", "currency_column")
        let currencyColumn = columns[.currency] ?? currencyColumnKey
        switch (try string("prices", "currency"), currencyColumn) {
        case (let code?, nil):
            guard Money.keptCurrency(of: code) != nil else { throw fail("prices.currency", "must be an ISO 4217 code (EUR, GBP, CHF, …), not '\(code)'") }
            currency = .fixed(code)
        case (nil, let column?):
            currency = .column(column)
            columns[.currency] = column
        case (nil, nil): throw fail("prices.currency", "missing: a fixed currency or a currency column")
        default: throw fail("prices.currency", "give a fixed currency or a currency column, not both")
        }
        guard let includesVAT = try bool("prices", "includes_vat") else {
            throw fail("prices.includes_vat", "missing: say whether prices include VAT")
        }
        var vatRate: StockFeedMapping.Source?
        if !includesVAT {
            let vatColumnKey = try string("prices", "vat_rate_column")
            let vatColumn = columns[.vatRate] ?? vatColumnKey
            switch (try string("prices", "vat_rate"), vatColumn) {
            case (let rate?, nil):
                guard ExactDecimal.parse(rate, decimalSeparator: ".", maxFractionDigits: 4) != nil else {
                    throw fail("prices.vat_rate", "must be a decimal-point percentage, not '\(rate)'")
                }
                vatRate = .fixed(rate)
            case (nil, let column?):
                vatRate = .column(column)
                columns[.vatRate] = column
            case (nil, nil): throw fail("prices.vat_rate", "missing: prices without VAT need a VAT rate or a VAT rate column")
            default: throw fail("prices.vat_rate", "give a fixed VAT rate or a VAT rate column, not both")
            }
        }
        return (currency, vatRate)
    }

    /// `[pharmacy]`, or the pharmacy_id column: exactly one.
    private func pharmacy(columns: [CanonicalField: String]) throws(MappingError) -> StockFeedMapping.Source {
        let pharmacy: StockFeedMapping.Source
        switch (try string("pharmacy", "id"), try regex("pharmacy", "id_from_filename"), columns[.pharmacyID]) {
        case (let id?, nil, nil): pharmacy = .fixed(id)
        case (nil, let pattern?, nil): pharmacy = .fileName(pattern: pattern)
        case (nil, nil, let column?): pharmacy = .column(column)
        case (nil, nil, nil): throw fail("columns.pharmacy_id", "missing: a pharmacy_id column, [pharmacy] id_from_filename or [pharmacy] id")
        default: throw fail("columns.pharmacy_id", "give exactly one of a pharmacy_id column, [pharmacy] id_from_filename, [pharmacy] id")
        }
        return pharmacy
    }

    /// `[export]`, or the exported_at column: exactly one.
    private func exportedAt(columns: [CanonicalField: String]) throws(MappingError) -> StockFeedMapping.Source {
        let exported: StockFeedMapping.Source
        switch (try regex("export", "date_from_filename"), try string("export", "date"), columns[.exportedAt]) {
        case (let pattern?, nil, nil): exported = .fileName(pattern: pattern)
        case (nil, let date?, nil) where StockFeedMapping.ExportTimeOrigin(rawValue: date) != nil:
            exported = .fixed("") // the file's modification time or the run's, given per file (`exportTime(of:)`)
        case (nil, let date?, nil): exported = .fixed(date)
        case (nil, nil, let column?): exported = .column(column)
        case (nil, nil, nil): throw fail("columns.exported_at", "missing: an exported_at column, [export] date_from_filename or [export] date")
        default: throw fail("columns.exported_at", "give exactly one of an exported_at column, [export] date_from_filename, [export] date")
        }
        return exported
    }
}
