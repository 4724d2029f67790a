import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

/// FEEDS.md §12, XML paths: up any number of levels to what comes before
/// the record (the nearest counts), an element with child elements is
/// `not_a_value` (never its concatenated text), and predicates that pick one
/// of repeated children.
@Suite struct XMLPathTests {
    static func mapping(_ columns: String, record: String = "PACK", export: String = "[export]\ndate = \"2019-04-01\"") -> String {
        """
        [format]
        type = "xml"
        record_element = "\(record)"
        [prices]
        currency = "GBP"
        includes_vat = true
        price_unit = "minor"
        [missing_values]
        price = ["0"]
        [pharmacy]
        id = "UK1"
        \(export)
        [columns]
        \(columns)
        """
    }

    static let document = """
        <?xml version="1.0"?>
        <DMD release="2019-04-01">
          <PRODUCTS>
            <PRODUCT><NM>First product</NM></PRODUCT>
            <PRODUCT><NM>Nutrison</NM><MAKER><NM>Nutricia</NM></MAKER></PRODUCT>
          </PRODUCTS>
          <PACKS>
            <PACK ID="1001">
              <NAME lang="cy">Nutrison (Cymraeg)</NAME><NAME lang="en">Nutrison 500 ml</NAME>
              <PRICE TYPE="list">500</PRICE><PRICE TYPE="retail">539</PRICE>
              <GTINDATA><GTIN>8712400158572</GTIN><ENDDT>2013-07-21</ENDDT></GTINDATA>
              <GTINDATA><GTIN>8712400360258</GTIN><STARTDT>2013-07-22</STARTDT></GTINDATA>
              <FLAGS><INVALID>0</INVALID></FLAGS>
            </PACK>
            <PACK ID="1002">
              <NAME>Adenocor</NAME>
              <PRICE TYPE="retail">120</PRICE>
              <GTINDATA><GTIN>5000123456789</GTIN></GTINDATA>
            </PACK>
            <PACK ID="1003">
              <NAME><EN>Nested</EN></NAME>
              <PRICE TYPE="retail">100</PRICE>
            </PACK>
            <PACK ID="1004"><NAME>Unpriced</NAME><PRICE TYPE="retail">0</PRICE></PACK>
          </PACKS>
        </DMD>
        """

    private func parse(_ columns: String, export: String = "[export]\ndate = \"2019-04-01\"") throws -> FeedOutput<StockOffer> {
        let directory = TemporaryDirectory()
        let adapter = try #require(MappedXMLStockAdapter(mapping: try MappingLoader.load(path: directory.write("dmd.mapping.toml", text: Self.mapping(columns, export: export)))))
        return try AdapterHarness.parse(adapter, bytes: Array(Self.document.utf8), name: "dmd.xml", expectRecognised: true).0
    }

    /// `../../PRODUCTS/PRODUCT/NM` goes up two levels and down three; of the
    /// two products before the packs the nearest counts. Predicates pick one
    /// of repeated children; a nested element is `not_a_value`.
    @Test func pathsUpAnyLevelsAndPredicates() throws {
        let output = try parse("""
            aptcode = "@ID"
            name = "NAME[@lang=\\"en\\"]"
            producer = "../../PRODUCTS/PRODUCT/MAKER/NM"
            active_substance = "../../PRODUCTS/PRODUCT/NM"
            price = "PRICE[@TYPE=\\"retail\\"]"
            gtin = "GTINDATA[not(ENDDT)]/GTIN"
            """)
        #expect(output.records.map(\.aptcode) == ["1001"])
        #expect(output.records.map(\.name) == ["Nutrison 500 ml"])
        #expect(output.records.map(\.producer) == ["Nutricia"])
        #expect(output.records.map(\.activeSubstance) == ["Nutrison"])
        #expect(output.records.map(\.priceCents) == [539])
        #expect(output.records.map(\.gtin) == ["08712400360258"])
        // Only 1001 has a NAME with lang="en" (1003's NAME holds an element).
        #expect(output.rejects.map { "\($0.line) \($0.key) \($0.reason.rawValue) \($0.field ?? "")" }
                == ["15 1002 missing_field name", "20 1003 missing_field name", "24 1004 missing_field name"])
        let plain = try parse("aptcode = \"@ID\"\nname = \"NAME\"\nprice = \"PRICE[@TYPE=\\\"retail\\\"]\"")
        #expect(plain.records.map(\.name) == ["Nutrison (Cymraeg)", "Adenocor"], "the first NAME counts")
        #expect(plain.rejects.map { "\($0.key) \($0.reason.rawValue) \($0.field ?? "") \($0.message)" }
                == ["1003 not_a_value name name at NAME is an element with child elements, not a value",
                    "1004 missing_price price no price (empty or one of the mapping's missing values)"])
    }

    /// Every kind of predicate: `[N]`, `[@a]`, `[not(@a)]`, `[@a="v"]`, `[c]`, `[not(c)]`, `[c="v"]`.
    @Test(arguments: [
        ("NAME[2]", ["1001 Nutrison 500 ml"]),
        ("NAME[1]", ["1001 Nutrison (Cymraeg)", "1002 Adenocor"]),
        ("NAME[3]", []),
        ("NAME[@lang]", ["1001 Nutrison (Cymraeg)"]),
        ("NAME[not(@lang)]", ["1002 Adenocor"]),
        ("GTINDATA[ENDDT]/GTIN", ["1001 8712400158572"]),
        ("GTINDATA[not(STARTDT)]/GTIN", ["1001 8712400158572", "1002 5000123456789"]),
        ("GTINDATA[STARTDT=\\\"2013-07-22\\\"]/GTIN", ["1001 8712400360258"]),
    ])
    func everyPredicate(path: String, named: [String]) throws {
        let output = try parse("aptcode = \"@ID\"\nname = \"\(path)\"\nprice = \"PRICE[@TYPE=\\\"retail\\\"]\"\n[filter]\nskip_when = [{ path = \"FLAGS/INVALID\", equals = \"1\" }]")
        #expect(output.records.map { "\($0.aptcode) \($0.name)" } == named.filter { !$0.hasPrefix("1003") })
    }

    /// A path outside the record that names an element holding others, and
    /// the root's attribute from an absolute path.
    @Test func outerContainersAndTheRoot() throws {
        let output = try parse("aptcode = \"@ID\"\nname = \"../../PRODUCTS/PRODUCT\"\nprice = \"PRICE[@TYPE=\\\"retail\\\"]\"\nexported_at = \"/DMD/@release\"",
                               export: "")
        #expect(output.records.isEmpty)
        #expect(output.rejects.map { "\($0.key) \($0.reason.rawValue)" } == ["1001 not_a_value", "1002 not_a_value", "1003 not_a_value", "1004 not_a_value"])
        #expect(output.rejects[0].message == "name at ../../PRODUCTS/PRODUCT is an element with child elements, not a value")
    }

    @Test(arguments: [
        ("name = \"NAME[0]\"", "columns.name"),
        ("name = \"NAME[last()]\"", "columns.name"),
        ("name = \"..\"", "columns.name"),
        ("name = \"NAME//X\"", "columns.name"),
        ("name = \"NAME[@lang=\\\"en]\"", "columns.name"),
    ])
    func impossiblePathsAreMappingErrors(line: String, key: String) throws {
        let directory = TemporaryDirectory()
        let text = Self.mapping("aptcode = \"@ID\"\nprice = \"PRICE\"\n\(line)")
        #expect { _ = try MappingLoader.load(path: directory.write("dmd.mapping.toml", text: text)) } throws: { ($0 as? MappingError)?.key == key }
    }
}
