import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

@Suite struct MappingLoaderTests {
    static let valid = """
    [match]
    filename = "chain_*.csv"
    [format]
    delimiter = ";"
    decimal_separator = ","
    date_format = "dd.MM.yyyy"
    [prices]
    currency = "EUR"
    includes_vat = true
    [columns]
    pharmacy_id = "shop"
    aptcode = "code"
    name = "name"
    price = "price"
    quantity = "qty"
    exported_at = "date"
    """

    private func load(_ text: String) throws(MappingError) -> StockFeedMapping {
        let directory = TemporaryDirectory()
        let path = directory.write("chain.mapping.toml", text: text)
        return try MappingLoader.load(path: path)
    }

    private func error(_ text: String) -> MappingError? {
        do { _ = try load(text); return nil } catch { return error }
    }

    @Test func theZales24MappingLoads() throws {
        let mapping = try MappingLoader.load(path: "\(RepositoryFiles.mappingsDirectory)/zales24.mapping.toml")
        #expect(mapping.name == "zales24")
        #expect(mapping.currency == .fixed("LVL"))
        #expect(mapping.decimalSeparator == UInt8(ascii: ","))
        #expect(mapping.pharmacyID == .column("aptiekas_kods"))
        #expect(mapping.requiredColumns == ["aptiekas_kods", "preces_kods", "cena_LVL"])
    }

    @Test func aValidMappingLoads() throws {
        let mapping = try load(Self.valid)
        #expect(mapping.columns[.aptcode] == "code")
        #expect(mapping.vatRate == nil)
    }

    static func edit(_ old: String, _ new: String) -> String { valid.replacingOccurrences(of: old, with: new) }

    static let invalid: [(String, String)] = {
        var cases: [(String, String)] = []
        cases.append((edit("[columns]", "[columns]\ncolour = \"x\""), "columns.colour"))
        cases.append((edit("[prices]", "[prices]\nround = \"up\""), "prices.round"))
        cases.append((valid + "\n[extras]\nx = 1", "extras"))
        cases.append((edit("aptcode = \"code\"\n", ""), "columns.aptcode"))
        cases.append((edit("price = \"price\"\n", ""), "columns.price"))
        cases.append((edit("delimiter = \";\"", "delimiter = \";;\""), "format.delimiter"))
        cases.append((edit("delimiter = \";\"", "delimiter = \"\\n\""), "format.delimiter"))
        cases.append((edit("delimiter = \";\"", "delimiter = \"\\\"\""), "format.quote"))
        cases.append((edit("currency = \"EUR\"", "currency = \"XYZ\""), "prices.currency"))
        cases.append((edit("includes_vat = true", "includes_vat = false"), "prices.vat_rate"))
        cases.append((edit("includes_vat = true", ""), "prices.includes_vat"))
        cases.append((edit("pharmacy_id = \"shop\"\n", ""), "columns.pharmacy_id"))
        cases.append((edit("exported_at = \"date\"", ""), "columns.exported_at"))
        cases.append((edit("dd.MM.yyyy", "dd.QQ.yyyy"), "format.date_format"))
        cases.append((edit("filename = \"chain_*.csv\"", ""), "match"))
        cases.append((edit("[format]", "[format]\nencoding = \"klingon-8\""), "format.encoding"))
        cases.append((edit("[format]", "[format]\ntype = \"yaml\""), "format.type"))
        cases.append((edit("[format]", "[format]\ntype = \"json\""), "format.record"))
        cases.append((edit("[prices]", "[prices]\nprice_unit = \"pence\""), "prices.price_unit"))
        return cases
    }()

    @Test(arguments: invalid)
    func invalidMappingsNameTheKey(text: String, key: String) {
        let failure = error(text)
        #expect(failure?.key == key, "got \(String(describing: failure))")
        #expect(failure?.file == "chain.mapping.toml")
    }

    @Test func brokenTOMLNamesTheLine() {
        let failure = error("[match\nfilename = 1")
        #expect(failure?.key == nil)
        #expect(failure?.message.contains("line 1") == true)
    }

    @Test func anAmbiguousFileIsAConfigurationErrorNamingBothClaimants() throws {
        let directory = TemporaryDirectory()
        directory.write("mappings/a.mapping.toml", text: Self.valid)
        directory.write("mappings/b.mapping.toml", text: Self.valid)
        let catalog = AdapterCatalog(AdapterCatalog.mappedAdapters(try MappingLoader.loadAll(directory: "\(directory.path)/mappings")))
        let path = directory.write("chain_1.csv", text: "shop;code;name;price;qty;date\n")
        #expect {
            _ = try catalog.claim(FeedFile.open(path: path, name: "chain_1.csv"))
        } throws: { error in
            let text = "\(error)"
            return text.contains("mapping:a") && text.contains("mapping:b") && text.contains("chain_1.csv")
        }
    }
}

extension StockFeedMapping.Source: CustomStringConvertible {
    public var description: String {
        switch self {
        case .column(let name): return "column(\(name))"
        case .fileName(let pattern): return "fileName(\(pattern))"
        case .fixed(let value): return "fixed(\(value))"
        }
    }
}

@Suite struct PatientPriceRulesLoaderTests {
    @Test func theRulesFileHoldsTheSpecsFourPeriods() throws {
        let rules = try #require(try PatientPriceRulesLoader.load(directory: RepositoryFiles.mappingsDirectory))
        #expect(rules == PatientPriceRules.statutory)
        #expect(rules.periods.map(\.from) == ["2003-01-01", "2011-01-01", "2018-01-01", "2025-01-01"])
    }

    @Test(arguments: [
        ("[[period]]\nfrom = \"2003-01-01\"\nfee = { \"100\" = 1.28, \"90\" = \"1.28\", \"75\" = \"1.28\", \"50\" = \"3.20\" }", "period[0].fee.100"),
        ("[[period]]\nfrom = \"2003-01-01\"\nfee = { \"100\" = \"1.28\", \"90\" = \"1.28\", \"75\" = \"1.28\" }", "period[0].fee.50"),
        ("[[period]]\nfrom = \"someday\"\nfee = { \"100\" = \"1\", \"90\" = \"1\", \"75\" = \"1\", \"50\" = \"1\" }", "period[0].from"),
        ("[[period]]\nfrom = \"2003-01-01\"\nfee = { \"100\" = \"1\", \"90\" = \"1\", \"75\" = \"1\", \"50\" = \"1\", \"60\" = \"1\" }", "period[0].fee.60"),
        ("rounding = \"down\"", "rounding"),
    ])
    func invalidRulesNameTheKey(text: String, key: String) {
        let directory = TemporaryDirectory()
        directory.write(PatientPriceRulesLoader.fileName, text: text)
        #expect(throws: MappingError.self) { try PatientPriceRulesLoader.load(directory: directory.path) }
        do { _ = try PatientPriceRulesLoader.load(directory: directory.path) } catch { #expect(error.key == key) }
    }
}
