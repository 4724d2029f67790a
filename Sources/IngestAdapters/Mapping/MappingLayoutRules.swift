/// What one layout (`[format] type`) reads from a mapping file and what it
/// allows: its `[format]` keys, whether it has header columns to match, how a
/// file of it is recognised, and which columns and filters it can follow.
/// The loader picks one by the type, once; a layout's rules live in its own
/// type, not in branches across the loader.
protocol MappingLayoutRules {
    /// The `[format] type` values it reads.
    static var types: [String] { get }
    /// The layout from `[format]` (and `[match] required_columns` where a
    /// header row can be matched), checked. `columns`: each field's first column.
    static func layout(type: String, from table: MappingTable, columns: [CanonicalField: String]) throws(MappingError)
        -> (layout: StockFeedMapping.Layout, requiredColumns: [String])
    /// Why a mapping without `[match] filename` or required columns would be
    /// wrong (it would claim every file, or could not be recognised); nil
    /// when its content alone names it.
    static func unmatched(in table: MappingTable) -> MappingError?
    /// The columns (every part of each field) and the filter's columns,
    /// checked against what a file of this layout can name.
    static func check(columns: [CanonicalField: [String]], skipWhen: [StockFeedMapping.SkipCondition], layout: StockFeedMapping.Layout,
                      in table: MappingTable) throws(MappingError)
}

extension MappingTable {
    /// The layouts a mapping may have, in the order `format.type`'s error lists them.
    /// (Computed: a list of metatypes is not Sendable, so it cannot be a stored static.)
    static var layouts: [any MappingLayoutRules.Type] {
        [DelimitedMappingLayout.self, FixedWidthMappingLayout.self, XMLMappingLayout.self, JSONMappingLayout.self]
    }

    /// `[match] required_columns`, refused by a layout without a header row.
    func refuseRequiredColumns(_ why: String) throws(MappingError) {
        if try section("match")?["required_columns"] != nil { throw fail("match.required_columns", why) }
    }
}
