import IngestTestSupport
import Testing
@testable import IngestAdapters

/// Issue 47, item 4: each layout's rules in a type of its own, picked once
/// by `[format] type`. What each layout refuses, named down to the key, and
/// what it makes of a valid file.
@Suite struct MappingLayoutRulesTests {
    /// A stock mapping with `format` and `match` as given and columns that suit any layout but JSON.
    static func mapping(format: String, match: String = "filename = \"shop_*.txt\"", columns: String? = nil) -> String {
        """
        [match]
        \(match)

        [format]
        \(format)

        [prices]
        currency = "EUR"
        includes_vat = true

        [columns]
        \(columns ?? "pharmacy_id = \"1\"\naptcode = \"2\"\nname = \"3\"\nprice = \"4\"\nexported_at = \"5\"")
        """
    }

    static let ranges = "pharmacy_id = [1, 4]\naptcode = [5, 9]\nname = [10, 20]\nprice = [21, 26]\nexported_at = [27, 36]"

    static let refusals: [(format: String, match: String, columns: String?, error: String)] = [
        ("type = \"tsv\"", "filename = \"shop_*.txt\"", nil,
         "shop.mapping.toml: [format.type]: must be \"csv\", \"fixed\", \"xml\", \"json\" or \"jsonl\", not 'tsv'"),
        ("type = \"csv\"", "", nil, "shop.mapping.toml: [match]: needs filename and/or required_columns, or it would claim every file"),
        ("type = \"fixed\"", "", ranges, "shop.mapping.toml: [match.filename]: missing: a fixed-width file is recognised by its name only"),
        ("type = \"jsonl\"", "", "pharmacy_id = \"/p\"\naptcode = \"/a\"\nname = \"/n\"\nprice = \"/c\"\nexported_at = \"/t\"",
         "shop.mapping.toml: [match.filename]: missing: a JSON file is recognised by its name only"),
        ("type = \"fixed\"", "filename = \"shop_*.txt\"\nrequired_columns = [\"a\"]", ranges,
         "shop.mapping.toml: [match.required_columns]: applies to files with a header row only"),
        ("type = \"fixed\"\ndelimiter = \";\"", "filename = \"shop_*.txt\"", ranges, "shop.mapping.toml: [format.delimiter]: applies to delimited files only"),
        ("type = \"xml\"", "filename = \"shop_*.txt\"", nil,
         "shop.mapping.toml: [format.record_element]: missing: an XML mapping names its repeating record element"),
        ("type = \"json\"\nrecord = \"/items\"", "filename = \"shop_*.txt\"", nil,
         "shop.mapping.toml: [columns.aptcode]: must be a JSON Pointer from the record (\"/price\", \"/names/0\") or from the document's root (\"$/pharmacy\"), not '2'"),
        ("type = \"csv\"\nheader = false", "filename = \"shop_*.txt\"", "pharmacy_id = \"1\"\naptcode = \"code\"\nname = \"3\"\nprice = \"4\"\nexported_at = \"5\"",
         "shop.mapping.toml: [columns.aptcode]: a file without header needs column numbers, not 'code'"),
        ("type = \"csv\"\nquote = \";\"\ndelimiter = \";\"", "filename = \"shop_*.txt\"", nil, "shop.mapping.toml: [format.quote]: must differ from the delimiter"),
    ]

    @Test(arguments: refusals.indices)
    func eachLayoutRefusesWhatItCannotRead(_ index: Int) throws {
        let (format, match, columns, error) = Self.refusals[index]
        let directory = TemporaryDirectory()
        let path = directory.write("shop.mapping.toml", text: Self.mapping(format: format, match: match, columns: columns))
        #expect { _ = try MappingLoader.load(path: path) } throws: { "\($0)" == error }
    }

    @Test func eachLayoutMakesItsOwnSettings() throws {
        let directory = TemporaryDirectory()
        func layout(_ format: String, match: String = "filename = \"shop_*.txt\"", columns: String? = nil) throws -> StockFeedMapping.Layout {
            try MappingLoader.load(path: directory.write("shop.mapping.toml", text: Self.mapping(format: format, match: match, columns: columns))).layout
        }
        guard case .delimited(delimiter: 0x3B, quote: 0, hasHeader: false) = try layout("delimiter = \";\"\nquote = \"\"\nheader = false") else {
            Issue.record("not a delimited layout without quotes or header")
            return
        }
        guard case .fixedWidth(headerLines: 2) = try layout("type = \"fixed\"\nheader = 2", columns: Self.ranges) else {
            Issue.record("not a fixed-width layout skipping two lines")
            return
        }
        guard case .xml(recordElement: "item", namespace: nil) = try layout("type = \"xml\"\nrecord_element = \"item\"", match: "",
                                                                                 columns: "pharmacy_id = \"shop\"\naptcode = \"code\"\nname = \"name\"\nprice = \"price\"\nexported_at = \"at\"") else {
            Issue.record("not an XML layout: an XML mapping needs no file name")
            return
        }
        let required = try MappingLoader.load(path: directory.write("shop.mapping.toml", text: Self.mapping(
            format: "type = \"csv\"", match: "required_columns = [\" code \", \"price\"]"))).requiredColumns
        #expect(required == ["code", "price"])
    }
}
