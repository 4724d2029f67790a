/// `type = "fixed"`: fixed-width lines after `header` lines to skip; every
/// column is a range. Recognised by its name only.
enum FixedWidthMappingLayout: MappingLayoutRules {
    static let types = ["fixed"]

    static func layout(type: String, from table: MappingTable, columns: [CanonicalField: String]) throws(MappingError)
        -> (layout: StockFeedMapping.Layout, requiredColumns: [String]) {
        let headerLines: Int
        switch try table.section("format")?["header"] {
        case nil: headerLines = 0
        case let value?:
            guard let count = value.int, count >= 0 else { throw table.fail("format.header", "in a fixed-width file, the number of lines to skip (0 or more)") }
            headerLines = count
        }
        for key in ["delimiter", "quote"] where try table.section("format")?[key] != nil {
            throw table.fail("format.\(key)", "applies to delimited files only")
        }
        try table.refuseRequiredColumns("applies to files with a header row only")
        return (.fixedWidth(headerLines: headerLines), [])
    }

    static func unmatched(in table: MappingTable) -> MappingError? {
        table.fail("match.filename", "missing: a fixed-width file is recognised by its name only")
    }

    static func check(columns: [CanonicalField: [String]], skipWhen: [StockFeedMapping.SkipCondition], layout: StockFeedMapping.Layout,
                      in table: MappingTable) throws(MappingError) {}
}
