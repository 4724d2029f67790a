/// `type = "csv"`: delimited text read by libcsv, with or without a header
/// row; a file is recognised by its name and/or the header's columns.
enum DelimitedMappingLayout: MappingLayoutRules {
    static let types = ["csv"]

    static func layout(type: String, from table: MappingTable, columns: [CanonicalField: String]) throws(MappingError)
        -> (layout: StockFeedMapping.Layout, requiredColumns: [String]) {
        let delimiter = try table.singleByte("format", "delimiter", default: ",")
        // `quote = ""`: a file that is never quoted (a quote character in it is data); libcsv gets NUL, which text never holds.
        let quote = try table.string("format", "quote") == "" ? 0 : try table.singleByte("format", "quote", default: "\"")
        guard delimiter != quote else { throw table.fail("format.quote", "must differ from the delimiter") }
        let hasHeader = try table.bool("format", "header") ?? true
        if !hasHeader {
            for (field, column) in columns where Int(column) == nil {
                throw table.fail("columns.\(field.rawValue)", "a file without header needs column numbers, not '\(column)'")
            }
        }
        let required = try table.section("match")?["required_columns"].map { value throws(MappingError) in
            try table.strings(value, key: "match.required_columns")
        } ?? []
        return (.delimited(delimiter: delimiter, quote: quote, hasHeader: hasHeader), required)
    }

    static func unmatched(in table: MappingTable) -> MappingError? {
        table.fail("match", "needs filename and/or required_columns, or it would claim every file")
    }

    static func check(columns: [CanonicalField: [String]], skipWhen: [StockFeedMapping.SkipCondition], layout: StockFeedMapping.Layout,
                      in table: MappingTable) throws(MappingError) {
        guard case .delimited(_, _, false) = layout else { return }
        for condition in skipWhen where Int(condition.column) == nil {
            throw table.fail("filter.skip_when", "a file without header needs column numbers, not '\(condition.column)'")
        }
    }
}
