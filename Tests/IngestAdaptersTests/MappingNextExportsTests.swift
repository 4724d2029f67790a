import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

/// FEEDS.md §12.1, what the next real exports need: translated values and
/// constants (checked against their field's rules when the mapping is
/// loaded), register fields that may be left out, prices with currency
/// symbols and thousands separators. Exact values throughout.
@Suite struct MappingNextExportsTests {
    /// The Estonian medicine register's CSV export, as its current layout writes it.
    static func registerMapping(columns: String = "prescription = \"Retsepti staatus\"", extra: String = "") -> String {
        """
        kind = "register"
        [match]
        filename = "ravimid_*.csv"
        [format]
        delimiter = ";"
        [export]
        date_from_filename = "ravimid_([0-9-]{10})\\\\.csv$"
        [columns]
        package_code = "Pakendi kood"
        name = "Nimetus"
        form = "Ravimvorm"
        atc = "ATC kood"
        \(columns)
        \(extra)
        """
    }

    static let translations = """
        [values]
        prescription = { "Retseptiravim" = "Rx", "Käsimüügiravim" = "OTC" }
        form = { "tbl" = "tablett" }
        """

    static let register = """
        Pakendi kood;Nimetus;Ravimvorm;ATC kood;Retsepti staatus
        1144976;DOXY-M-RATIOPHARM;TBL;J01AA02;Retseptiravim
        1012352;IBUMETIN; kapsel ;M01AE01; käsimüügiravim
        1012341;PARACETAMOL;;;
        1144977;BAD CHECK DIGIT;tbl;;Retseptiravim
        1234561;HAIGLA;tbl;;Haiglaravim

        """

    private func load(_ mapping: String) throws -> StockFeedMapping {
        let directory = TemporaryDirectory()
        return try withExtendedLifetime(directory) { try MappingLoader.load(path: directory.write("ravimid.mapping.toml", text: mapping)) }
    }

    private func readRegister(_ mapping: String, _ text: String = register) throws -> FeedOutput<MedicinePackage> {
        let adapter = MappedRegisterAdapter(mapping: try load(mapping))
        let directory = TemporaryDirectory()
        let file = try FeedFile.open(path: directory.write("ravimid_2026-11-01.csv", text: text), name: "ravimid_2026-11-01.csv")
        #expect(adapter.recognises(file))
        var output = FeedOutput<MedicinePackage>(file: file.name)
        #expect(adapter.parse(file, into: &output) == "2026-11-01")
        #expect(output.read == output.accepted + output.rejected)
        return output
    }

    static func rows(_ output: FeedOutput<MedicinePackage>) -> [String] {
        output.records.map { "\($0.packageCode) \($0.form ?? "NULL") \($0.atc ?? "NULL") \($0.prescription ?? "NULL") \($0.leafletURL ?? "NULL")" }
    }

    /// Values listed are replaced ignoring case after trimming; a value not
    /// listed goes through as written and meets the field's rules.
    @Test func translatedValuesMeetTheFieldsRules() throws {
        let output = try readRegister(Self.registerMapping(extra: Self.translations))
        #expect(Self.rows(output) == [
            "1144976 tablett J01AA02 Rx NULL",
            "1012352 kapsel M01AE01 OTC NULL",
            "1012341 NULL NULL NULL NULL",
        ])
        #expect(output.rejects.map { "\($0.line) \($0.key) \($0.reason.rawValue) \($0.message)" } == [
            "5 1144977 bad_package_code package code '1144977' is not 7 digits with a valid check digit",
            "6 1234561 bad_prescription prescription 'Haiglaravim' is not Rx or OTC",
        ])
    }

    /// An older layout has no prescription column: left out it is unknown
    /// (NULL), or a constant gives every row one; only code and name are required.
    @Test func anOlderLayoutLeavesFieldsOutOrFixesThem() throws {
        let older = """
            Pakendi kood;Nimetus;Ravimvorm;ATC kood
            1144976;DOXY-M-RATIOPHARM;tbl;J01AA02
            1012352;IBUMETIN;;

            """
        let without = try readRegister(Self.registerMapping(columns: ""), older)
        #expect(Self.rows(without) == ["1144976 tbl J01AA02 NULL NULL", "1012352 NULL NULL NULL NULL"])
        let fixed = try readRegister(Self.registerMapping(columns: "", extra: "[constants]\nprescription = \"OTC\"\nleaflet_url = \"https://ravimid.example/pil\""), older)
        #expect(Self.rows(fixed) == ["1144976 tbl J01AA02 OTC https://ravimid.example/pil", "1012352 NULL NULL OTC https://ravimid.example/pil"])
        #expect(throws: MappingError(file: "ravimid.mapping.toml", key: "columns.name",
                                     message: "missing: every register record needs name (a column, or a value in [constants])")) {
            try load(Self.registerMapping(columns: "").replacingOccurrences(of: "name = \"Nimetus\"\n", with: ""))
        }
    }

    /// What a mapping writes itself must be a value its field takes: every
    /// mistake below would reject every record that uses it, night after night.
    @Test(arguments: [
        ("[values]\nprescription = { \"Retseptiravim\" = \"RX\" }", "values.prescription", "'Retseptiravim' translates to 'RX', which is not Rx or OTC"),
        ("[values]\natc = { \"x\" = \"J01AA0Z\" }", "values.atc", "'x' translates to 'J01AA0Z', which is not an ATC code"),
        ("[values]\nleaflet_url = { \"-\" = \"file:///etc/passwd\" }", "values.leaflet_url", "'-' translates to 'file:///etc/passwd', which is not an http or https URL"),
        ("[values]\nprescription = { \"Rx\" = \"Rx\", \"rx\" = \"OTC\" }", "values.prescription", "'rx' is listed twice (values are compared ignoring case)"),
        ("[values]\nprescription = \"Rx\"", "values.prescription", "must be a table of values as written and as meant, such as { \"Retseptiravim\" = \"Rx\" }"),
        ("[values]\nprice = { \"x\" = \"1\" }", "values.price", "not a field of a register mapping; known: package_code, name, form, strength, pack_size, atc, active_substance, leaflet_url, spc_url, prescription, exported_at"),
        ("[constants]\npackage_code = \"1144977\"", "constants.package_code", "give a constant or columns for package_code, not both"),
        ("[constants]\nspc_url = \"javascript:alert(1)\"", "constants.spc_url", "'javascript:alert(1)' is not an http or https URL"),
        ("[constants]\nform = \"\"", "constants.form", "must be a non-empty string"),
        ("[constants]\nexported_at = \"2026-11-01\"", "constants.exported_at", "is given by [export] date, not a constant"),
        ("[constants]\nname = \"Two\\nLines\"", "constants.name", "give a constant or columns for name, not both"),
        ("[constants]\nstrength = \"5\\u0007mg\"", "constants.strength", "'5\u{7}mg' has the control character \\u{7}"),
    ])
    func writtenValuesAreCheckedWhenTheMappingLoads(extra: String, key: String, message: String) throws {
        #expect(throws: MappingError(file: "ravimid.mapping.toml", key: key, message: message)) {
            try load(Self.registerMapping(extra: extra))
        }
    }

    /// A pharmacy's own JSON price list in USD: the symbol of the feed's
    /// currency is read, another currency's is `wrong_currency`, thousands
    /// as the mapping says; a constant fills a field the file lacks.
    @Test func aPriceListInDollarsWithSymbols() throws {
        let mapping = """
            [match]
            filename = "prices_*.json"
            [format]
            type = "json"
            record = "/items"
            [prices]
            currency = "USD"
            includes_vat = true
            thousands = ","
            [pharmacy]
            id = "US-1"
            [export]
            date = "2026-11-20"
            [columns]
            aptcode = "/sku"
            name = "/title"
            price = "/price"
            [constants]
            producer = "OWN BRAND"
            """
        let document = """
            {"items": [
              {"sku": "A1", "title": "Aspirin", "price": "$1.820"},
              {"sku": "A2", "title": "Bandage", "price": "1,299.00 USD"},
              {"sku": "A3", "title": "Cream", "price": "€2.00"},
              {"sku": "A4", "title": "Drops", "price": "2.00 GBP"},
              {"sku": "A5", "title": "Elixir", "price": "12,99"},
              {"sku": "A6", "title": "Foam", "price": 3.5}
            ]}
            """
        let directory = TemporaryDirectory()
        let adapter = try #require(MappedJSONStockAdapter(mapping: try MappingLoader.load(path: directory.write("prices.mapping.toml", text: mapping))))
        let (output, header) = try AdapterHarness.parse(adapter, bytes: Array(document.utf8), name: "prices_2026.json", expectRecognised: true)
        #expect(header?.currency == "USD")
        #expect(output.records.map { "\($0.aptcode) \($0.priceCents) \($0.producer ?? "")" } == ["A1 182 OWN BRAND", "A2 129900 OWN BRAND", "A6 350 OWN BRAND"])
        #expect(output.rejects.map { "\($0.line) \($0.reason.rawValue) \($0.message)" } == [
            "3 wrong_currency price '€2.00' is written in €, the feed's prices are in USD; never converted at a market rate",
            "4 wrong_currency price '2.00 GBP' is written in GBP, the feed's prices are in USD; never converted at a market rate",
            "5 bad_price price '12,99' is not a decimal number with '.' as separator and ',' between thousands",
        ])
    }

    @Test func theThousandsSeparatorIsOneOfFourAndNotTheDecimal() throws {
        let base = MappingWorldExportsTests.mapping()
        #expect(throws: MappingError(file: "ravimid.mapping.toml", key: "prices.thousands", message: "must be \",\", \".\", \" \" or \"'\", not '_'")) {
            try load(base.replacingOccurrences(of: "includes_vat = true", with: "includes_vat = true\nthousands = \"_\""))
        }
        #expect(throws: MappingError(file: "ravimid.mapping.toml", key: "prices.thousands", message: "must differ from the decimal separator")) {
            try load(base.replacingOccurrences(of: "includes_vat = true", with: "includes_vat = true\nthousands = \".\""))
        }
    }
}
