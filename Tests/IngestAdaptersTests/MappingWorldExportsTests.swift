import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

/// FEEDS.md §12, the parts for delimited and XML feeds: names as the file
/// writes them, missing values, filters, a mapping's own reject-rate
/// limit, fields of several columns. Each with exact values.
@Suite struct MappingWorldExportsTests {
    static func mapping(_ format: String = "", columns: String = "name = \"Bezeichnung \"", extra: String = "") -> String {
        """
        [match]
        filename = "wala_*.csv"
        required_columns = ["EAN-Code ", " Bezeichnung"]
        [format]
        delimiter = ";"
        \(format)
        [prices]
        currency = "EUR"
        includes_vat = true
        [pharmacy]
        id = "W1"
        [export]
        date = "2026-06-11"
        [columns]
        aptcode = "Pharmacode"
        gtin = "EAN-Code"
        price = "Preis "
        \(columns)
        \(extra)
        """
    }

    static let file = """
        EAN-Code;Pharmacode;Bezeichnung ;Form ;Preis ;INVALID
        4001638088015;1001;Arnica Salbe;Tube 30 g;16.55;0
        4001638088022;1002;Calendula Essenz;Flasche 50 ml;-;0
        4001638088039;1003;Schlehen Elixier; ;0;0
        4001638088046;1004;Old Stock;Tube;9.90;1
        4001638088053;1005;;Tube;3.00;0

        """

    private func parse(_ mapping: String, _ text: String = file) throws -> (FeedOutput<StockOffer>, StockFeedHeader?) {
        let directory = TemporaryDirectory()
        let adapter = try #require(MappedCSVStockAdapter(mapping: try MappingLoader.load(path: directory.write("wala.mapping.toml", text: mapping))))
        return try AdapterHarness.parse(adapter, bytes: Array(text.utf8), name: "wala_2026.csv", expectRecognised: true)
    }

    /// Header cells and mapping names are compared trimmed on both sides, in
    /// `[columns]` and `required_columns` alike; empty values are missing.
    @Test func namesAsTheFileWritesThemAndEmptyValuesMissing() throws {
        let (output, header) = try parse(Self.mapping())
        #expect(header?.pharmacyID == "W1" && output.failure == nil)
        #expect(output.records.map(\.aptcode) == ["1001", "1003", "1004"])
        #expect(output.records.map(\.priceCents) == [1655, 0, 990])
        #expect(output.rejects.map { "\($0.line) \($0.reason.rawValue) \($0.field ?? "")" } == ["3 bad_price price", "6 missing_field name"])
    }

    /// `[format] missing_values` for every field, `[missing_values]` for one:
    /// `-` and, for the price, `0` mean "no price" (dm+d's `PRICE 0`), never 0.00.
    @Test func missingValuesAreNeverPublishedAsZero() throws {
        let (output, _) = try parse(Self.mapping("missing_values = [\"-\"]", extra: "[missing_values]\nprice = [\"0\"]"))
        #expect(output.records.map(\.aptcode) == ["1001", "1004"])
        #expect(output.rejects.map { "\($0.line) \($0.reason.rawValue)" } == ["3 missing_price", "4 missing_price", "6 missing_field"])
        #expect(output.rejects[0].message == "no price (empty or one of the mapping's missing values)")
    }

    /// `[filter] skip_when`: the record is a reject `filtered`, so `read =
    /// accepted + rejected` holds, and it counts in neither side of the reject rate.
    @Test func filteredRecordsAreRejectedAndLeftOutOfTheRate() throws {
        let skip = "[filter]\nskip_when = [{ column = \"INVALID\", equals = \"1\" }, { column = \"Form \", matches = \"Flasche.*\" }]"
        let (output, _) = try parse(Self.mapping(extra: skip))
        #expect(output.records.map(\.aptcode) == ["1001", "1003"])
        #expect(output.rejects.map { "\($0.line) \($0.reason.rawValue)" } == ["3 filtered", "5 filtered", "6 missing_field"])
        #expect(output.rejects[1].message == "skipped by the mapping's filter: INVALID equals '1'")
        #expect(output.read == 5 && output.filtered == 2 && output.rejected == 3)
        let partial = "[filter]\nskip_when = [{ column = \"Form \", matches = \"Tube\" }]"
        #expect(try parse(Self.mapping(extra: partial)).0.filtered == 2, "matches the whole value: 'Tube 30 g' is not skipped")
    }

    /// A field of several columns: joined with one space, empty parts left out.
    @Test func aFieldFromSeveralColumns() throws {
        let (output, _) = try parse(Self.mapping(columns: "name = [\"Bezeichnung\", \"Form\"]"))
        #expect(output.records.map(\.name) == ["Arnica Salbe Tube 30 g", "Schlehen Elixier", "Old Stock Tube", "Tube"])
        #expect(output.rejects.map { "\($0.line) \($0.reason.rawValue)" } == ["3 bad_price"], "line 6 has a form: its name is 'Tube'")
    }

    /// A column no header has: the message lists the header's columns.
    @Test func aMissingColumnListsTheHeader() throws {
        let (output, _) = try parse(Self.mapping(columns: "name = \"Bezeichnung\"\nproducer = \"Hersteller\""))
        #expect(output.failure?.message == "the header has no column 'Hersteller' for producer (renamed?); its columns are 'EAN-Code', "
            + "'Pharmacode', 'Bezeichnung', 'Form', 'Preis', 'INVALID'; the feed is not loaded")
    }

    /// The loader refuses what cannot work, naming the key.
    @Test(arguments: [
        ("[filter]\nskip_when = [{ column = \"A\" }]", "wala.mapping.toml: [filter.skip_when]: each condition has one of equals, not_equals or matches, with a string"),
        ("[filter]\nskip_when = [{ column = \"A\", matches = \"(\" }]", "wala.mapping.toml: [filter.skip_when]: '(' is not a regular expression"),
        ("[limits]\nmax_reject_rate = 101", "wala.mapping.toml: [limits.max_reject_rate]: must be a whole percentage from 0 to 100"),
        ("[missing_values]\nprise = [\"0\"]", "wala.mapping.toml: [missing_values.prise]: not a field of a stock mapping; known: pharmacy_id, pharmacy_name, aptcode, package_code, gtin, name, producer, atc, active_substance, price, quantity, exported_at, currency, vat_rate"),
    ])
    func badSettingsAreNamed(extra: String, message: String) throws {
        let directory = TemporaryDirectory()
        #expect(throws: MappingError.self) { try MappingLoader.load(path: directory.write("wala.mapping.toml", text: Self.mapping(extra: extra))) }
        do {
            _ = try MappingLoader.load(path: directory.write("wala.mapping.toml", text: Self.mapping(extra: extra)))
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test func aColumnNameOverOneKilobyteIsRefused() throws {
        let directory = TemporaryDirectory()
        let long = String(repeating: "x", count: 1025)
        #expect(throws: MappingError.self) {
            try MappingLoader.load(path: directory.write("wala.mapping.toml", text: Self.mapping(columns: "name = \"\(long)\"")))
        }
    }
}

extension MappingWorldExportsTests {
    /// Text hygiene: a control character or line break in a code or a name,
    /// or a name over 500 characters, rejects the record `bad_text`.
    @Test func codesAndNamesHoldNoControlCharacters() throws {
        let long = String(repeating: "ä", count: 501)
        let text = "EAN-Code;Pharmacode;Bezeichnung ;Preis \n"
            + "4001638088015;10\u{1B}[2J01;Arnica;1.00\n"
            + "4001638088022;1002;\"Calendula\u{85}Essenz\";1.00\n"
            + "4001638088039;1003;\(long);1.00\n"
            + "4001638088046;1004;\(long.dropLast());1.00\n"
        let (output, _) = try parse(Self.mapping(), text)
        #expect(output.records.map(\.aptcode) == ["1004"])
        #expect(output.rejects.map { "\($0.line) \($0.reason.rawValue) \($0.message)" } == [
            "2 bad_text aptcode has the control character \\u{1B}", // valid UTF-8: bad_text, not bad_encoding (FEEDS.md §12)
            "3 bad_text name has the control character \\u{85}",
            "4 bad_text name has 501 characters, over the 500 allowed",
        ])
    }

    @Test func terminalTextShowsControlCharactersEscaped() {
        #expect(TextHygiene.visible("price '\u{1B}[2J9,99'\tx") == "price '\\u{1B}[2J9,99'\\tx")
        #expect(TextHygiene.visible("C:\\feeds\\a.csv ÕÄ") == "C:\\feeds\\a.csv ÕÄ", "backslashes and letters stay")
    }
}

extension MappingWorldExportsTests {
    /// Two exports concatenated: a header again mid-file, its columns in
    /// another order, is read as the header of the rows after it; one that
    /// lacks a mapped column rejects the rows after it, each with its line.
    @Test func aHeaderAgainMidFileIsFollowed() throws {
        let text = """
            EAN-Code;Pharmacode;Bezeichnung ;Form ;Preis ;INVALID
            4001638088015;1001;Arnica Salbe;Tube;16.55;0
            Pharmacode;Preis;EAN-Code;Bezeichnung;Form;INVALID
            1002;9.90;4001638088022;Calendula Essenz;Flasche;0
            EAN-Code;Artikel;Preis
            4001638088039;Schlehen Elixier;3.00
            4001638088046;Old Stock;4.00

            """
        let (output, _) = try parse(Self.mapping(), text)
        #expect(output.failure == nil)
        #expect(output.records.map { "\($0.aptcode) \($0.name ?? "") \($0.priceCents) \($0.gtin ?? "")" } == [
            "1001 Arnica Salbe 1655 04001638088015", "1002 Calendula Essenz 990 04001638088022",
        ])
        let fault = "read by the header at line 5, which has no column 'Pharmacode' for aptcode; its columns are 'EAN-Code', 'Artikel', 'Preis'"
        #expect(output.rejects.map { "\($0.line) \($0.reason.rawValue) \($0.message)" } == ["6 bad_header \(fault)", "7 bad_header \(fault)"])
        #expect(output.read == 4)
    }
}
