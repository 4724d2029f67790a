import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

@Suite struct MappedXMLStockAdapterTests {
    static let mapping = """
    [match]
    filename = "lt_*.xml"
    [format]
    type = "xml"
    record_element = "offer"
    decimal_separator = "."
    date_format = "yyyy-MM-dd"
    [prices]
    currency = "LTL"
    includes_vat = true
    [pharmacy]
    id_from_filename = 'lt_([0-9]+)_'
    [export]
    date_from_filename = '_([0-9]{4}-[0-9]{2}-[0-9]{2})\\.xml'
    [columns]
    aptcode = "@code"
    name = "title"
    producer = "maker/name"
    price = "price/@amount"
    quantity = "stock"
    gtin = "ids/@gtin"
    """

    private func parse(_ xml: String, name: String = "lt_900_2015-03-01.xml") throws -> (FeedOutput<StockOffer>, StockFeedHeader?) {
        let directory = TemporaryDirectory()
        let adapter = try #require(MappedXMLStockAdapter(mapping: try MappingLoader.load(path: directory.write("lt.mapping.toml", text: Self.mapping))))
        return try AdapterHarness.parse(adapter, bytes: Array(xml.utf8), name: name, expectRecognised: true)
    }

    @Test func pathsReachChildTextAndAttributes() throws {
        let xml = """
        <?xml version="1.0"?>
        <export><offers>
          <offer code="lt1"><title>VAISTAS</title><maker><name>GAMYKLA</name></maker>
            <price amount="3.4528"/><stock>5</stock><ids gtin="4740086000124"/><ignored>x</ignored></offer>
          <offer code="lt2"><title>KITAS</title><price amount="x"/><stock>1</stock></offer>
        </offers></export>
        """
        let (output, header) = try parse(xml)
        #expect(header?.pharmacyID == "900")
        #expect(header?.exportedAt.localDate == "2015-03-01")
        #expect(output.records.count == 1)
        let offer = try #require(output.records.first)
        #expect(offer.aptcode == "LT1")
        #expect(offer.name == "VAISTAS")
        #expect(offer.producer == "GAMYKLA")
        #expect(offer.priceCents == 100)
        #expect(offer.gtin == "04740086000124")
        #expect(output.rejects.map(\.reason) == [.badPrice])
        #expect(output.rejects.first?.line == 5)
    }

    /// The parser keeps at most `XMLTextCapture.maxBytes` of one element's
    /// text: a longer field rejects its record instead of loading it cut short.
    @Test func aFieldOverTheTextLimitRejectsItsRecordOnly() throws {
        let long = String(repeating: "Ą", count: XMLTextCapture.maxBytes / 2 + 1)
        let xml = """
        <?xml version="1.0"?>
        <export><offers>
          <offer code="lt1"><title>\(long)</title><price amount="1.00"/><stock>5</stock></offer>
          <offer code="lt2"><title>KITAS</title><price amount="1.00"/><stock>1</stock></offer>
        </offers></export>
        """
        let (output, header) = try parse(xml)
        #expect(output.failure == nil)
        #expect(header?.pharmacyID == "900")
        #expect(output.read == 2)
        #expect(output.records.map(\.aptcode) == ["LT2"])
        #expect(output.rejects.map(\.reason) == [.lineTooLong])
        #expect(output.rejects.first?.key == "LT1")
        #expect(output.rejects.first?.field == "title")
        #expect(output.rejects.first?.line == 3)
    }

    @Test func doctypeIsRefusedHereToo() throws {
        let xml = "<?xml version=\"1.0\"?><!DOCTYPE export [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><export><offer code=\"a\"><title>&e;</title></offer></export>"
        let (output, _) = try parse(xml)
        #expect(output.failure?.reason == .unsafeXML)
    }

    /// A list shaped like the Swiss Spezialitätenliste: the name and ATC on
    /// the product, a price on each of its packs, the date on the root; no
    /// stock levels (a price list).
    static let outerMapping = """
    [match]
    filename = "sl_*.xml"
    [format]
    type = "xml"
    record_element = "Pack"
    decimal_separator = "."
    date_format = "dd.MM.yyyy"
    [prices]
    currency = "EUR"
    includes_vat = true
    [pharmacy]
    id = "9001"
    [columns]
    aptcode = "@PackId"
    name = "../../NameDe"
    atc = "../../AtcCode"
    producer = "../../Maker/@name"
    package_code = "../../@Code"
    price = "Prices/PublicPrice/Price"
    gtin = "GTIN"
    exported_at = "/Preparations/@ReleaseDate"
    """

    @Test func pathsReachAncestorsAndTheRootAndQuantityMayBeLeftOut() throws {
        let xml = """
        <?xml version="1.0"?>
        <Preparations ReleaseDate="01.12.2013">
          <Preparation Code="1144976">
            <NameDe>Varilrix</NameDe><AtcCode>j07bk01</AtcCode><Maker name="GSK"/>
            <Packs>
              <Pack PackId="14418"><GTIN>4740086000124</GTIN><Prices><PublicPrice><Price>66.5</Price></PublicPrice></Prices></Pack>
              <Pack PackId="14419"><Prices><PublicPrice><Price>9</Price></PublicPrice></Prices></Pack>
            </Packs>
          </Preparation>
          <Preparation>
            <NameDe>Ohne Code</NameDe>
            <Packs><Pack PackId="20001"><Prices><PublicPrice><Price>1.05</Price></PublicPrice></Prices></Pack></Packs>
          </Preparation>
        </Preparations>
        """
        let directory = TemporaryDirectory()
        let adapter = try #require(MappedXMLStockAdapter(mapping: try MappingLoader.load(path: directory.write("sl.mapping.toml", text: Self.outerMapping))))
        let (output, header) = try AdapterHarness.parse(adapter, bytes: Array(xml.utf8), name: "sl_1.xml", expectRecognised: true)
        #expect(output.failure == nil)
        #expect(header?.exportedAt.localDate == "2013-12-01" && header?.pharmacyID == "9001")
        #expect(output.records.map(\.aptcode) == ["14418", "14419", "20001"])
        #expect(output.records.map(\.name) == ["Varilrix", "Varilrix", "Ohne Code"])
        #expect(output.records.map(\.atc) == ["J07BK01", "J07BK01", nil])
        #expect(output.records.map(\.producer) == ["GSK", "GSK", nil])
        // The second product has no code of its own: the first one's does not leak into it.
        #expect(output.records.map(\.packageCode) == ["1144976", "1144976", nil])
        #expect(output.records.map(\.priceCents) == [6650, 900, 105])
        #expect(output.records.map(\.quantity) == [nil, nil, nil])
    }
}
