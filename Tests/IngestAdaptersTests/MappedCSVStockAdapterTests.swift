import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

@Suite struct MappedCSVStockAdapterTests {
    static func mapping(_ extra: String = "", prices: String = "currency = \"EUR\"\nincludes_vat = true", encoding: String = "UTF-8",
                        decimal: String = ",", pharmacy: String = "pharmacy_id = \"shop\"") -> String {
        """
        [match]
        filename = "chain_*.csv"
        [format]
        delimiter = ";"
        encoding = "\(encoding)"
        decimal_separator = "\(decimal)"
        date_format = "yyyy-MM-dd"
        \(extra)
        [prices]
        \(prices)
        [columns]
        \(pharmacy)
        aptcode = "code"
        name = "name"
        price = "price"
        quantity = "qty"
        exported_at = "date"
        """
    }

    private func parse(_ csv: [UInt8], mapping: String = mapping(), name: String = "chain_1.csv") throws -> (FeedOutput<StockOffer>, StockFeedHeader?) {
        let directory = TemporaryDirectory()
        let adapter = try #require(MappedCSVStockAdapter(mapping: try MappingLoader.load(path: directory.write("chain.mapping.toml", text: mapping))))
        return try AdapterHarness.parse(adapter, bytes: csv, name: name, expectRecognised: true)
    }

    private func parse(_ csv: String, mapping: String = mapping(), name: String = "chain_1.csv") throws -> (FeedOutput<StockOffer>, StockFeedHeader?) {
        try parse(Array(csv.utf8), mapping: mapping, name: name)
    }

    static let header = "shop;code;name;price;qty;date\n"

    @Test func zales24ReadsBackExactly() throws {
        let directory = TemporaryDirectory()
        _ = directory
        let adapter = try #require(MappedCSVStockAdapter(mapping: try MappingLoader.load(path: "\(RepositoryFiles.mappingsDirectory)/zales24.mapping.toml")))
        let file = try FeedFile.open(path: RepositoryFiles.feed("zales24_export_2013-06-01.csv"), name: "zales24_export_2013-06-01.csv")
        #expect(adapter.recognises(file))
        var output = FeedOutput<StockOffer>(file: file.name)
        let header = adapter.parse(file, into: &output)
        #expect(output.failure == nil)
        #expect(header?.pharmacyID == "7001")
        #expect(header?.pharmacyName == "Mēness aptieka")
        #expect(output.records.map(\.priceCents) == [139, 201, 299])
        #expect(output.records.map(\.name) == ["PARACETAMOL 500MG TBL N20", "IBUPROFEN 200MG TBL N20; forte", "ZIEDE \"Bērnu\" 50G"])
        #expect(output.records.map(\.quantity) == [40, 15, 6])
        #expect(output.records[2].producer == "Rīgas Farmaceitiskā Fabrika")
        #expect(output.records[2].atc == nil)
    }

    @Test func quotingCases() throws {
        let csv = Self.header
            + "1;A1;\"semi; colon\";1,00;1;2024-01-02\n"
            + "1;A2;\"doubled \"\"quotes\"\"\";1,00;1;2024-01-02\n"
            + "1;A3;\"two\nlines\";1,00;1;2024-01-02\n"
            + "1;A4;plain;\"2,50\";\"7\";2024-01-02\n"
        let (output, _) = try parse(csv)
        #expect(output.records.map(\.name) == ["semi; colon", "doubled \"quotes\"", "plain"])
        #expect(output.records.map(\.line) == [2, 3, 6])
        #expect(output.records.last?.priceCents == 250)
        // A quoted line break is read as part of the field, and a name with one is rejected (FEEDS.md §12, text hygiene).
        #expect(output.rejects.map { "\($0.line) \($0.reason.rawValue) \($0.field ?? "") \($0.message)" } == ["4 bad_text name name has a line break"])
    }

    @Test func bomCRLFAndBlankTrailingLines() throws {
        let csv = [0xEF, 0xBB, 0xBF] + Array((Self.header + "1;A1;N;1,00;1;2024-01-02\r\n1;A2;M;2,00;2;2024-01-02\r\n\r\n\r\n").replacingOccurrences(of: "\n", with: "\r\n").replacingOccurrences(of: "\r\r", with: "\r").utf8)
        let (output, header) = try parse(csv)
        #expect(output.failure == nil)
        #expect(output.records.map(\.aptcode) == ["A1", "A2"])
        #expect(header?.exportedAt.localDate == "2024-01-02")
    }

    @Test func windows1257Encoding() throws {
        let csv = CP1257Encoder.encode(Self.header + "1;A1;ŠAMPOON ÕRN;1,00;1;2024-01-02\n")
        let (output, _) = try parse(csv, mapping: Self.mapping(encoding: "Windows-1257"))
        #expect(output.records.first?.name == "ŠAMPOON ÕRN")
    }

    @Test func invalidUTF8IsARejectNotAGuess() throws {
        let csv = Array((Self.header + "1;A1;").utf8) + [0xC3, 0x28] + Array(";1,00;1;2024-01-02\n1;A2;ok;1,00;1;2024-01-02\n".utf8)
        let (output, _) = try parse(csv)
        #expect(output.rejects.map(\.reason) == [.badEncoding])
        #expect(output.records.map(\.aptcode) == ["A2"])
    }

    @Test(arguments: [("EEK", "156,46", 1000 as Int64), ("LVL", "0,98", 139), ("LTL", "3,4528", 100), ("EUR", "2,37", 237)])
    func fixedCurrencies(currency: String, price: String, cents: Int64) throws {
        let (output, _) = try parse(Self.header + "1;A1;N;\(price);1;2024-01-02\n",
                                    mapping: Self.mapping(prices: "currency = \"\(currency)\"\nincludes_vat = true"))
        #expect(output.records.first?.priceCents == cents)
    }

    @Test func currencyAndVATFromColumnsWithDecimalPoint() throws {
        let mapping = Self.mapping(prices: "currency_column = \"cur\"\nincludes_vat = false\nvat_rate_column = \"vat\"", decimal: ".")
        let csv = "shop;code;name;price;qty;date;cur;vat\n1;A1;N;3.40;1;2024-01-02;EUR;9\n1;A2;N;0.98;1;2024-01-02;LVL;0\n1;A3;N;1.00;1;2024-01-02;XYZ;0\n"
        let (output, _) = try parse(csv, mapping: mapping)
        #expect(output.records.map(\.priceCents) == [371, 139])
        #expect(output.rejects.map(\.field) == ["currency"])
    }

    @Test func fixedVATRate() throws {
        let mapping = Self.mapping(prices: "currency = \"EUR\"\nincludes_vat = false\nvat_rate = \"22\"")
        let (output, _) = try parse(Self.header + "1;A1;N;8,26;1;2024-01-02\n", mapping: mapping)
        #expect(output.records.first?.priceCents == 1008)
    }

    @Test func pharmacyIdFromTheFileName() throws {
        let mapping = Self.mapping("", pharmacy: "").replacingOccurrences(of: "[prices]", with: "[pharmacy]\nid_from_filename = 'chain_([0-9]+)\\.csv'\n[prices]")
        let (output, header) = try parse("code;name;price;qty;date\nA1;N;1,00;1;2024-01-02\n", mapping: mapping, name: "chain_4242.csv")
        #expect(output.failure == nil)
        #expect(header?.pharmacyID == "4242")
    }

    @Test func aRenamedColumnRejectsTheFeedLoudly() throws {
        let (output, _) = try parse("shop;code;title;price;qty;date\n1;A1;N;1,00;1;2024-01-02\n")
        #expect(output.failure?.reason == .badHeader)
        #expect(output.failure?.message.contains("'name'") == true)
    }

    @Test func rowRejectsNameLineAndField() throws {
        let csv = Self.header
            + "1;A1;N;1.000,00;1;2024-01-02\n"
            + "1;A2;N;1,00;-1;2024-01-02\n"
            + "1;A3;N;1,00\n"
            + "2;A4;N;1,00;1;2024-01-02\n"
            + "1;A5;N;1,00;1;2024-01-02\n"
        let (output, _) = try parse(csv)
        #expect(output.rejects.map(\.reason) == [.badPrice, .badQuantity, .badFieldCount, .pharmacyMismatch])
        #expect(output.rejects.map(\.line) == [2, 3, 4, 5])
        #expect(output.rejects.first?.field == "price")
        #expect(output.records.map(\.aptcode) == ["A5"])
    }

    @Test func unterminatedQuoteRejectsTheWholeFeed() throws {
        let (output, _) = try parse(Self.header + "1;A1;\"never closed;1,00;1;2024-01-02\n1;A2;N;1,00;1;2024-01-02\n")
        #expect(output.failure?.reason == .malformedCSV)
    }
}

/// A chain file split on several lanes gives exactly what one thread gives:
/// the same parts, each with its rejects, warnings and offers in file order
/// (so the same duplicates win), and the same rows that name no pharmacy.
@Suite struct ChainLanesTests {
    private struct Split: Equatable {
        var parts: [String]
        var rejects: [String]
        var offers: [String]
        var rest: [String]
        var failures: [String]
    }

    private func split(_ csv: String, lanes: Int, spillIn directory: TemporaryDirectory) throws -> Split {
        let mapping = MappedCSVStockAdapterTests.mapping(pharmacy: "pharmacy_id = \"shop\"")
        let adapter = try #require(MappedCSVStockAdapter(mapping: try MappingLoader.load(path: directory.write("chain.mapping.toml", text: mapping))))
        let router = ChainRouter(file: "chain_1.csv", spillPrefix: "\(directory.path)/spill-\(lanes)-", lanes: lanes)
        let rest = adapter.split(FeedFile(name: "chain_1.csv", bytes: Array(csv.utf8)), into: router)
        let parts = router.finish(fileFailure: rest.failure)
        #expect(router.spillFailure == nil)
        var result = Split(parts: parts.map(\.pharmacyID), rejects: [], offers: [],
                           rest: rest.rejects.map { "\($0.line) \($0.reason.rawValue) \($0.key)" }, failures: [])
        for part in parts {
            var output = FeedOutput<StockOffer>(file: "chain_1.csv")
            let header = try part.replay(into: &output)
            result.failures.append("\(part.pharmacyID): \(header?.exportedAt.iso8601 ?? "-") \(output.failure?.reason.rawValue ?? "-")")
            result.rejects += output.rejects.map { "\(part.pharmacyID) \($0.line) \($0.reason.rawValue) \($0.key)" }
            result.offers += output.records.map { "\(part.pharmacyID) \($0.line) \($0.aptcode) \($0.priceCents)" }
        }
        return result
    }

    @Test func lanesSplitAsOneThreadDoes() throws {
        var csv = MappedCSVStockAdapterTests.header
        var expectedOffers = 0
        for row in 0..<5_000 {
            let shop = "S\(row * 7 % 23)"
            switch row % 97 {
            case 5: csv += ";A\(row);NAME;1,00;1;2026-11-22\n"                 // no pharmacy
            case 11: csv += "\(shop);A\(row);NAME;x;1;2026-11-22\n"            // a bad price
            case 17: csv += "\(shop);A\(row);NAME;1,00;1\n"                    // a field short
            case 23: csv += "\(shop);A\(row - 23 * 7);NAME;2,00;1;2026-11-22\n" // a key again, maybe in the same pharmacy
            default:
                csv += "\(shop);A\(row);NAME \(row);\(row % 90 + 1),\(row % 100);\(row % 5);2026-11-22\n"
                expectedOffers += 1
            }
        }
        let directory = TemporaryDirectory()
        let one = try split(csv, lanes: 1, spillIn: directory)
        #expect(one.parts.count == 23 && one.rest.count == 52 && one.offers.count >= expectedOffers)
        #expect(one.rejects.contains { $0.hasSuffix(" bad_price A11") } && one.rejects.contains { $0.contains(" bad_field_count ") })
        for lanes in [2, 3] {
            #expect(try split(csv, lanes: lanes, spillIn: directory) == one, "\(lanes) lanes")
        }
    }
}
