import IngestTestSupport
import Testing
@testable import IngestAdapters

/// Issue 47, item 4: each mapped adapter holds only its own layout's
/// settings. Handed a mapping of another layout, it is nil (it used to
/// stop the process with `fatalError`); the catalogue makes the one the
/// layout calls for.
@Suite struct MappedStockReaderTests {
    @Test func eachLayoutGetsItsOwnAdapterAndNoOtherTakesIt() throws {
        let directory = TemporaryDirectory()
        let delimited = try MappingLoader.load(path: directory.write("chain.mapping.toml", text: MappedCSVStockAdapterTests.mapping()))
        let json = try MappingLoader.load(path: directory.write("shop.mapping.toml", text: JSONFeedTests.mapping()))
        let xml = try MappingLoader.load(path: directory.write("lt.mapping.toml", text: MappedXMLStockAdapterTests.mapping))
        #expect(MappedCSVStockAdapter(mapping: delimited) != nil && MappedJSONStockAdapter(mapping: delimited) == nil
                && MappedXMLStockAdapter(mapping: delimited) == nil)
        #expect(MappedCSVStockAdapter(mapping: json) == nil && MappedJSONStockAdapter(mapping: json)?.recordPointer == "/items"
                && MappedXMLStockAdapter(mapping: json) == nil)
        #expect(MappedCSVStockAdapter(mapping: xml) == nil && MappedJSONStockAdapter(mapping: xml) == nil
                && MappedXMLStockAdapter(mapping: xml) != nil)
        let adapters = AdapterCatalog.mappedAdapters([delimited, json, xml])
        #expect(adapters[0] is MappedCSVStockAdapter && adapters[1] is MappedJSONStockAdapter && adapters[2] is MappedXMLStockAdapter)
    }
}
