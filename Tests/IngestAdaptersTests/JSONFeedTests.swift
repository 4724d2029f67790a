import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

/// FEEDS.md §12, JSON files: records at a JSON Pointer, fields as pointers
/// relative to a record or absolute (`$/…`) before the records, JSON Lines
/// one record per line, `null` missing, a truncated file keeping what came
/// before the break, a reject's `line` the record's 1-based index.
@Suite struct JSONFeedTests {
    static func mapping(type: String = "json", record: String? = "/items", pharmacy: String = "$/pharmacy", extra: String = "") -> String {
        """
        [match]
        filename = "shop_*.json*"
        [format]
        type = "\(type)"
        \(record.map { "record = \"\($0)\"" } ?? "")
        date_format = "yyyy-MM-dd HH:mm"
        [prices]
        currency = "EUR"
        includes_vat = true
        [columns]
        pharmacy_id = "\(pharmacy)"
        exported_at = "$/exported"
        aptcode = "/code"
        name = "/names/0"
        price = "/price"
        quantity = "/stock/qty"
        \(extra)
        """
    }

    static let document = """
        {"pharmacy": "4001", "exported": "2026-06-11 08:00", "count": 5, "items": [
          {"code": "1001", "names": ["Arnica Salbe", "Tube"], "price": 16.55, "stock": {"qty": 3}},
          {"code": "1002", "names": ["Calendula"], "price": null, "stock": {"qty": 1}},
          {"code": "1003", "names": [{"de": "Schlehe"}], "price": "4.20", "stock": {"qty": 0}},
          {"names": ["Öl \\u00e4"], "code": "1004", "price": 12, "stock": {"qty": 10}, "extra": [1, {"a": [2]}]},
          {"code": "1005", "names": ["Krone"], "price": 0.1E1, "stock": {"qty": 2}}
        ], "after": {"pharmacy": "9999"}}
        """

    private func parse(_ mapping: String, _ text: String = document, name: String = "shop_4001.json") throws -> (FeedOutput<StockOffer>, StockFeedHeader?) {
        let directory = TemporaryDirectory()
        let adapter = try #require(MappedJSONStockAdapter(mapping: try MappingLoader.load(path: directory.write("shop.mapping.toml", text: mapping))))
        return try AdapterHarness.parse(adapter, bytes: Array(text.utf8), name: name, expectRecognised: true)
    }

    /// Pointers relative and absolute, `null` missing, an object where a value
    /// should be `not_a_value`, numbers exact as written; `line` is the record's index.
    @Test func recordsAtAPointerWithExactValues() throws {
        let (output, header) = try parse(Self.mapping())
        #expect(header?.pharmacyID == "4001" && header?.exportedAt.iso8601 == "2026-06-11T08:00:00+03:00")
        #expect(output.failure == nil)
        #expect(output.records.map(\.aptcode) == ["1001", "1004", "1005"])
        #expect(output.records.map(\.name) == ["Arnica Salbe", "Öl ä", "Krone"])
        #expect(output.records.map(\.priceCents) == [1655, 1200, 100])
        #expect(output.records.map(\.quantity) == [3, 10, 2])
        #expect(output.records.map(\.line) == [1, 4, 5])
        #expect(output.rejects.map { "\($0.line) \($0.key) \($0.reason.rawValue) \($0.field ?? "")" }
                == ["2 1002 missing_price price", "3 1003 not_a_value name"])
        #expect(output.rejects[1].message == "name at /names/0 is an object, not a value")
        #expect(output.read == 5)
    }

    /// A file cut in the middle of record 3: records 1 and 2 stand, the rest is one `malformed_json` at index 3.
    @Test func aTruncatedFileKeepsWhatCameBefore() throws {
        let cut = String(Self.document.prefix(upTo: Self.document.range(of: "\"Schlehe")!.lowerBound))
        let (output, header) = try parse(Self.mapping(), cut)
        #expect(header?.pharmacyID == "4001" && output.failure == nil)
        #expect(output.records.map(\.aptcode) == ["1001"])
        #expect(output.rejects.map { "\($0.line) \($0.reason.rawValue)" } == ["2 missing_price", "3 malformed_json"])
        #expect(output.rejects[1].message.hasPrefix("the JSON breaks in record 3 ("))
        #expect(output.read == 3)
        let (nothing, _) = try parse(Self.mapping(), "{\"pharmacy\": \"4001\", \"items\": [ {\"code\": ")
        #expect(nothing.failure?.reason == .malformedJSON && nothing.records.isEmpty)
    }

    /// JSON Lines: one record a line (the line number is its `line`), a broken
    /// line one reject and the next read on, blank lines skipped; a chain
    /// file split by its pharmacy pointer.
    @Test func jsonLinesChainFile() throws {
        let lines = """
            {"shop": "A1", "at": "2026-06-11 08:00", "code": "1001", "names": ["Arnica"], "price": 1.5, "stock": {"qty": 1}}
            {"shop": "B2", "at": "2026-06-11 09:00", "code": "1001", "names": ["Arnica"], "price": "2.50", "stock": {"qty": 2}}

            {"shop": "A1", "at": "2026-06-11 08:00", "code": "1002", "names": ["Calendula"], "price": 3, "stock": {"qty": null}}
            {"shop": "A1", "at": "2026-06-11 08:00", "code": "1003", "names": ["Sch
            {"shop": "B2", "at": "2026-06-11 09:00", "code": "1004", "names": ["Öl"], "price": 4, "stock": {"qty": 4}}
            """
        let mapping = Self.mapping(type: "jsonl", record: nil, pharmacy: "/shop").replacingOccurrences(of: "$/exported", with: "/at")
        let directory = TemporaryDirectory()
        let adapter = try #require(MappedJSONStockAdapter(mapping: try MappingLoader.load(path: directory.write("shop.mapping.toml", text: mapping))))
        #expect(adapter.pharmacyPerRecord)
        let router = ChainRouter(file: "shop_all.jsonl", spillPrefix: "\(directory.path)/spill-", lanes: 1)
        let rest = adapter.split(FeedFile(name: "shop_all.jsonl", bytes: Array(lines.utf8)), into: router)
        let parts = router.finish(fileFailure: rest.failure)
        #expect(rest.failure == nil)
        #expect(rest.rejects.map { "\($0.line) \($0.reason.rawValue)" } == ["5 malformed_json"])
        #expect(parts.map(\.pharmacyID) == ["A1", "B2"])
        var offers: [String] = []
        var rejects: [String] = []
        for part in parts {
            var output = FeedOutput<StockOffer>(file: "shop_all.jsonl")
            _ = try part.replay(into: &output)
            offers += output.records.map { "\(part.pharmacyID) \($0.line) \($0.aptcode) \($0.priceCents)" }
            rejects += output.rejects.map { "\(part.pharmacyID) \($0.line) \($0.reason.rawValue)" }
        }
        #expect(offers == ["A1 1 1001 150", "B2 2 1001 250", "B2 6 1004 400"])
        #expect(rejects == ["A1 4 bad_quantity"])
    }

    /// Numbers with an exponent are the exact decimals they write.
    @Test(arguments: [("0.1E1", "1"), ("125e-2", "1.25"), ("-2.5E+3", "-2500"), ("7E-3", "0.007"), ("16.55", "16.55"), ("0e0", "0")])
    func exponentsAsPlainDecimals(number: String, plain: String) {
        #expect(MappedJSONReader.plainDecimal(number) == plain)
    }

    /// Mapping errors name the key.
    @Test(arguments: [
        ("type = \"json\"\nrecord = \"items\"", "format.record"),
        ("type = \"jsonl\"\nrecord = \"/items\"", "format.record"),
        ("type = \"json\"\nrecord = \"/items\"\ndelimiter = \";\"", "format.delimiter"),
        ("type = \"json\"\nrecord = \"/items\"\nencoding = \"windows-1252\"", "format.encoding"),
    ])
    func badSettingsAreNamed(format: String, key: String) throws {
        let directory = TemporaryDirectory()
        let text = Self.mapping().replacingOccurrences(of: "type = \"json\"\nrecord = \"/items\"", with: format)
        #expect { _ = try MappingLoader.load(path: directory.write("shop.mapping.toml", text: text)) } throws: { ($0 as? MappingError)?.key == key }
        let notAPointer = Self.mapping().replacingOccurrences(of: "price = \"/price\"", with: "price = \"price\"")
        #expect { _ = try MappingLoader.load(path: directory.write("b.mapping.toml", text: notAPointer)) } throws: { ($0 as? MappingError)?.key == "columns.price" }
    }
}
