import IngestCore

/// `type = "json"` (the records at a JSON Pointer) or `"jsonl"` (one record
/// a line). Always UTF-8, numbers with a point; recognised by its name only;
/// columns are JSON Pointers.
enum JSONMappingLayout: MappingLayoutRules {
    static let types = ["json", "jsonl"]

    static func layout(type: String, from table: MappingTable, columns: [CanonicalField: String]) throws(MappingError)
        -> (layout: StockFeedMapping.Layout, requiredColumns: [String]) {
        let pointer = try table.string("format", "record")
        if type == "json" {
            guard let pointer, JSONPointerTree.tokens(pointer) != nil else {
                throw table.fail("format.record", "missing or not a JSON Pointer: a JSON mapping names the array of records, such as \"/items\" (\"\" for the root)")
            }
        } else if pointer != nil {
            throw table.fail("format.record", "applies to \"json\" only: in JSON Lines each line is a record")
        }
        for key in ["delimiter", "quote", "header", "record_element", "namespace", "decimal_separator"] where try table.section("format")?[key] != nil {
            throw table.fail("format.\(key)", "does not apply to JSON (numbers are written with a point)")
        }
        if let encoding = try table.string("format", "encoding"), !TextTranscoder.isUTF8(encoding) {
            throw table.fail("format.encoding", "JSON is UTF-8 (RFC 8259), not '\(encoding)'")
        }
        try table.refuseRequiredColumns("applies to files with a header row only")
        return (.json(recordPointer: type == "json" ? pointer : nil), [])
    }

    static func unmatched(in table: MappingTable) -> MappingError? {
        table.fail("match.filename", "missing: a JSON file is recognised by its name only")
    }

    static func check(columns: [CanonicalField: [String]], skipWhen: [StockFeedMapping.SkipCondition], layout: StockFeedMapping.Layout,
                      in table: MappingTable) throws(MappingError) {
        for (field, parts) in columns.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            for part in parts where !isPointer(part) {
                throw table.fail("columns.\(field.rawValue)", "must be a JSON Pointer from the record (\"/price\", \"/names/0\") or from the document's root (\"$/pharmacy\"), not '\(part)'")
            }
        }
        for condition in skipWhen where !isPointer(condition.column) {
            throw table.fail("filter.skip_when", "a JSON filter names a JSON Pointer, not '\(condition.column)'")
        }
    }

    /// `/a/b` (from the record) or `$/a/b` (from the document's root).
    static func isPointer(_ text: String) -> Bool {
        let pointer = text.hasPrefix("$") ? String(text.dropFirst()) : text
        return !pointer.isEmpty && JSONPointerTree.tokens(pointer) != nil
    }
}
