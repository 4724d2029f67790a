import Foundation
import IngestCore

/// The records of a registry or register mapping (`kind = "registry"`,
/// `kind = "register"`, FEEDS.md §12), read by the same readers as mapped
/// stock (delimited, fixed-width, JSON, XML: encodings, missing values,
/// filters, joined fields), each turned into its kind's values by field name.
struct MappedRows {
    let mapping: StockFeedMapping

    func recognises(_ file: FeedFile) -> Bool {
        MappedStockReader(mapping).adapter.recognises(file)
    }

    /// Reads `file`, handing each record's values (trimmed, missing ones left
    /// out) and line to `record`, whose kind's rules check them (text
    /// hygiene included, as for the built-in adapters); what the readers
    /// reject (a row's field count, a filter, text that does not decode) and
    /// a failure of the whole file end in `output` too.
    func read<Record>(_ file: FeedFile, into output: inout FeedOutput<Record>,
                      record: (_ values: [String: String], _ line: Int, _ output: inout FeedOutput<Record>) -> Void) {
        var result = output
        let fields = mapping.kind.fields
        var rows = FeedOutput<StockOffer>(file: file.name)
        withoutActuallyEscaping(record) { record in
            let sink: (Int, MappedRecordReader) -> Void = { line, reader in
                var values: [String: String] = [:]
                for field in fields {
                    guard let text = reader.value(field)?.trimmed, !text.isEmpty else { continue }
                    values[field.rawValue] = text
                }
                record(values, line, &result)
            }
            _ = MappedStockReader(mapping).parse(file, into: &rows, rows: sink)
        }
        for reject in rows.rejects {
            result.reject(line: reject.line, key: reject.key, reason: reject.reason, message: reject.message, field: reject.field)
        }
        if let failure = rows.failure, result.failure == nil { result.failure = failure }
        output = result
    }
}

/// The pharmacy registry from any layout, by a mapping with `kind = "registry"`
/// (FEEDS.md §12): the same rules as the registry's own CSV (§5).
public struct MappedRegistryAdapter: FeedAdapter {
    public let mapping: StockFeedMapping
    public var name: String { mapping.adapterName }
    public var summary: String { "Pharmacy registry by \(mapping.file) (FEEDS.md §5, §12)" + (mapping.fileNameGlob.map { "; recognised by file name \($0)" } ?? "") }
    public let kind = FeedKind.pharmacyRegistry
    public var maxRejectRatePercent: Int? { mapping.maxRejectRatePercent }

    public init(mapping: StockFeedMapping) {
        self.mapping = mapping
    }

    public func recognises(_ file: FeedFile) -> Bool { MappedRows(mapping: mapping).recognises(file) }

    public func parse(_ file: FeedFile, into output: inout FeedOutput<PharmacyRecord>) -> NoHeader? {
        var seen = Set<String>()
        MappedRows(mapping: mapping).read(file, into: &output) { values, line, output in
            PharmacyRegistryAdapter.read(values, line: line, seen: &seen, into: &output)
        }
        return nil
    }
}

/// The medicine register from any layout, by a mapping with `kind = "register"`
/// (FEEDS.md §12): the same rules as the register's own CSV (§11); its date
/// (the header) from `[export]`, as a stock mapping's.
public struct MappedRegisterAdapter: FeedAdapter {
    public let mapping: StockFeedMapping
    public var name: String { mapping.adapterName }
    public var summary: String { "Medicine register by \(mapping.file) (FEEDS.md §11, §12)" + (mapping.fileNameGlob.map { "; recognised by file name \($0)" } ?? "") }
    public let kind = FeedKind.medicineRegister
    public var maxRejectRatePercent: Int? { mapping.maxRejectRatePercent }

    public init(mapping: StockFeedMapping) {
        self.mapping = mapping
    }

    public func recognises(_ file: FeedFile) -> Bool { MappedRows(mapping: mapping).recognises(file) }

    /// The date the register is valid from (`YYYY-MM-DD`), from the file name,
    /// the mapping, or the first record; nil when it cannot be read.
    public func parse(_ file: FeedFile, into output: inout FeedOutput<MedicinePackage>) -> String? {
        var seen = Set<String>()
        var validFrom = fixedDate(file)
        MappedRows(mapping: mapping).read(file, into: &output) { values, line, output in
            if validFrom == nil, let text = values[CanonicalField.exportedAt.rawValue] {
                validFrom = mapping.dateFormat.parse(text, in: mapping.timeZone)?.localDate
            }
            MedicineRegisterAdapter.read(values, line: line, seen: &seen, into: &output)
        }
        if validFrom == nil, output.failure == nil {
            output.failure = FeedFailure(reason: .badHeader, message: "the register's date cannot be read (\(mapping.exportedAt)); its validity is unknown")
        }
        return validFrom
    }

    private func fixedDate(_ file: FeedFile) -> String? {
        if let time = mapping.exportTime(of: file) { return time.localDate }
        switch mapping.exportedAt {
        case .fixed(let text): return mapping.dateFormat.parse(text, in: mapping.timeZone)?.localDate
        case .fileName(let pattern): return MappedRecordReader.capture(pattern, in: file.name).flatMap { mapping.dateFormat.parse($0, in: mapping.timeZone)?.localDate }
        case .column: return nil
        }
    }
}
