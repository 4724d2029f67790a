/// `type = "xml"`: one record per `record_element` (local name, optionally
/// in a namespace); columns are paths from the record. The record element
/// recognises the file, so it needs no file name.
enum XMLMappingLayout: MappingLayoutRules {
    static let types = ["xml"]

    static func layout(type: String, from table: MappingTable, columns: [CanonicalField: String]) throws(MappingError)
        -> (layout: StockFeedMapping.Layout, requiredColumns: [String]) {
        guard let record = try table.string("format", "record_element"), !record.isEmpty else {
            throw table.fail("format.record_element", "missing: an XML mapping names its repeating record element")
        }
        try table.refuseRequiredColumns("applies to delimited files only")
        return (.xml(recordElement: record, namespace: try table.string("format", "namespace")), [])
    }

    static func unmatched(in table: MappingTable) -> MappingError? { nil }

    static func check(columns: [CanonicalField: [String]], skipWhen: [StockFeedMapping.SkipCondition], layout: StockFeedMapping.Layout,
                      in table: MappingTable) throws(MappingError) {
        for (field, parts) in columns.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            for part in parts {
                if let problem = XMLMappedPath.problem(part) { throw table.fail("columns.\(field.rawValue)", "the XML path '\(part)' cannot be followed: \(problem)") }
            }
        }
        for condition in skipWhen {
            if let problem = XMLMappedPath.problem(condition.column) {
                throw table.fail("filter.skip_when", "the XML path '\(condition.column)' cannot be followed: \(problem)")
            }
        }
    }
}
