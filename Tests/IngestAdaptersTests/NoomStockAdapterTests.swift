import Foundation
import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

@Suite struct NoomStockAdapterTests {
    let adapter = NoomStockAdapter()

    static func document(items: String, count: Int? = nil, header: String = "", itemsAttributes: String = "currency=\"EUR\"") -> String {
        let itemCount = count ?? items.components(separatedBy: "</item>").count - 1
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        \(header)<stockExport xmlns="urn:noom:stock:2" version="2.1" generated="2024-05-19T23:05:00+03:00">
          <pharmacy id="5061" chain="20">ÜLIKOOLI APTEEK</pharmacy>
          <items \(itemsAttributes)>
        \(items)
          </items>
          <summary itemCount="\(itemCount)"/>
        </stockExport>
        """
    }

    static func item(_ aptcode: String, net: String = "1.00", vat: String = "9", stock: String = "1", extra: String = "", attributes: String = "") -> String {
        "<item aptcode=\"\(aptcode)\"\(attributes)><name>N \(aptcode)</name>\(extra)<price net=\"\(net)\" vatRate=\"\(vat)\"/><stock>\(stock)</stock></item>"
    }

    private func parse(_ text: String) -> (FeedOutput<StockOffer>, StockFeedHeader?) {
        try! AdapterHarness.parse(adapter, bytes: Array(text.utf8), name: "noom.xml")
    }

    @Test func theSpecExampleLoadsWithExactCents() throws {
        let file = try FeedFile.open(path: RepositoryFiles.feed("noom_5061_20240519.xml"), name: "noom")
        #expect(adapter.recognises(file))
        var output = FeedOutput<StockOffer>(file: "noom")
        let header = adapter.parse(file, into: &output)
        #expect(output.failure == nil)
        #expect(header?.pharmacyID == "5061")
        #expect(header?.chainID == "20")
        #expect(header?.exportedAt.iso8601 == "2024-05-19T23:05:00+03:00")
        #expect(output.records.map(\.priceCents) == [371, 237, 1008])
        #expect(output.records.map(\.quantity) == [12, 0, 4])
        #expect(output.records[0].gtin == "04740086000124")
        #expect(output.records[2].name == "KALAÕLI KAPSLID N100")
        #expect(output.records[2].packageCode == nil && output.records[2].gtin == nil)
        #expect(try adapter.readHeader(file).pharmacyName == "ÜLIKOOLI APTEEK")
    }

    @Test func unknownElementsAttributesAndNamespacesAreIgnored() {
        let items = """
        <item aptcode="A1" future="x"><name>Kept</name><shelf>B-12</shelf>
          <x:name xmlns:x="urn:other">Not the name</x:name>
          <nested><name>deep, not the name</name></nested>
          <price net="3.40" vatRate="9" unit="EUR"/><stock>2</stock></item>
        <o:item xmlns:o="urn:other" aptcode="IGNORED"><name>x</name></o:item>
        """
        let (output, _) = parse(Self.document(items: items, count: 1))
        #expect(output.failure == nil)
        #expect(output.records.map(\.name) == ["Kept"])
        #expect(output.records.first?.priceCents == 371)
    }

    /// libxml2 pulls the bytes through a read callback, 16 KiB first, then
    /// 256 KiB at a time: a BOM and items across those chunk ends still load.
    @Test func aBOMAndItemsAcrossReadChunksLoad() throws {
        let items = (0..<3_000).map { Self.item(String(format: "A%05d", $0)) }.joined(separator: "\n")
        let bytes = [0xEF, 0xBB, 0xBF] + Array(Self.document(items: items).utf8)
        #expect(bytes.count > 256 * 1024 + 16 * 1024)
        let (output, header) = try AdapterHarness.parse(adapter, bytes: bytes, name: "noom.xml")
        #expect(output.failure == nil)
        #expect(header?.pharmacyID == "5061")
        #expect(output.records.count == 3_000)
        #expect(output.records.last?.aptcode == "A02999")
    }

    @Test func textInsideAnUnknownChildIsNotPartOfTheField() {
        let items = Self.item("A1", extra: "") .replacingOccurrences(
            of: "<name>N A1</name>", with: "<name>Ke<x:b xmlns:x=\"urn:other\">junk</x:b>pt <u>more junk</u></name>")
        let (output, _) = parse(Self.document(items: items))
        #expect(output.records.map(\.name) == ["Kept"])
    }

    @Test func aFieldOverTheTextLimitRejectsItsItemOnly() {
        let long = String(repeating: "Ä", count: XMLTextCapture.maxBytes / 2 + 1)
        let items = Self.item("A0") + Self.item("A1").replacingOccurrences(of: "N A1", with: long) + Self.item("A2")
        let (output, _) = parse(Self.document(items: items))
        #expect(output.failure == nil)
        #expect(output.records.map(\.aptcode) == ["A0", "A2"])
        #expect(output.rejects.map(\.reason) == [.lineTooLong])
        #expect(output.rejects.first?.field == "name")
    }

    @Test(arguments: [
        (item("A1", net: "x"), RejectReason.badPrice),
        (item("A1", net: "1,00"), .badPrice),
        (item("A1", vat: ""), .badPrice),
        (item("A1", net: "-1.00"), .badPrice),
        (item("A1", stock: "-1"), .badQuantity),
        (item("A1", stock: "1.5"), .badQuantity),
        (item("A1", attributes: " packageCode=\"1144975\""), .badPackageCode),
        (item("A1", extra: "<gtin>4740086000125</gtin>"), .badGTINCheckDigit),
        (item("A1", extra: "<gtin>123</gtin>"), .badGTIN),
        ("<item><name>N</name><price net=\"1\" vatRate=\"9\"/><stock>1</stock></item>", .missingField),
        ("<item aptcode=\"A1\"><price net=\"1\" vatRate=\"9\"/><stock>1</stock></item>", .missingField),
        (item("A0"), .duplicateKey),
    ])
    func rejectsOneBadItem(bad: String, reason: RejectReason) {
        let (output, _) = parse(Self.document(items: Self.item("A0") + bad + Self.item("A2")))
        #expect(output.failure == nil)
        #expect(output.records.map(\.aptcode) == ["A0", "A2"])
        #expect(output.rejects.map(\.reason) == [reason])
        #expect((output.rejects.first?.line ?? 0) > 0)
    }

    @Test func fractionalVATRoundsHalfUpOnce() {
        let (output, _) = parse(Self.document(items: Self.item("A1", net: "1.00", vat: "5.5") + Self.item("A2", net: "8.26", vat: "22")))
        #expect(output.records.map(\.priceCents) == [106, 1008])
    }

    @Test func otherCurrenciesConvertAtTheirRates() {
        let (output, _) = parse(Self.document(items: Self.item("A1", net: "0.98", vat: "0"), itemsAttributes: "currency=\"LVL\""))
        #expect(output.records.first?.priceCents == 139)
    }

    @Test func summaryMismatchRejectsTheWholeFeedWithALine() {
        let (output, _) = parse(Self.document(items: Self.item("A1") + Self.item("A2"), count: 3))
        #expect(output.failure?.reason == .summaryMismatch)
        #expect((output.failure?.line ?? 0) > 0)
        #expect(output.rejectingAll().rejects.map(\.reason) == [.summaryMismatch, .summaryMismatch])
    }

    @Test func aTruncatedDocumentIsMalformedWithTheParsersLine() {
        let full = Self.document(items: Self.item("A1") + "\n" + Self.item("A2"))
        let cut = String(full.prefix(full.count / 2 + 40))
        let (output, _) = parse(cut)
        #expect(output.failure?.reason == .malformedXML)
        #expect((output.failure?.line ?? 0) > 0)
        let whole = output.rejectingAll()
        #expect(whole.accepted == 0 && whole.rejected == whole.read)
    }

    @Test func malformedXMLNamesLineAndMessage() {
        let text = Self.document(items: Self.item("A1") + "\n<item aptcode=\"A2\"><name>broken</nam></item>")
        let (output, _) = parse(text)
        #expect(output.failure?.reason == .malformedXML)
        #expect(output.failure?.line == 6)
        #expect(output.failure?.message.contains("mismatch") == true)
    }

    /// An external entity pointing at a FIFO: were libxml2 ever to open it,
    /// the read would block forever, so finishing at all proves nothing was read.
    @Test func xxeIsRefusedWithoutTouchingTheFileSystem() throws {
        let directory = TemporaryDirectory()
        let fifo = "\(directory.path)/secret"
        #expect(mkfifo(fifo, 0o600) == 0)
        let secret = directory.write("passwd", text: "root:x:0:0\n")
        let text = Self.document(
            items: "<item aptcode=\"A1\"><name>&xxe;&yyy;</name><price net=\"1\" vatRate=\"9\"/><stock>1</stock></item>",
            header: "<!DOCTYPE stockExport [<!ENTITY xxe SYSTEM \"file://\(fifo)\"><!ENTITY yyy SYSTEM \"file://\(secret)\">]>\n")
        let path = directory.write("xxe.xml", text: text)
        // The parse runs on a thread of its own, so a parse blocked on the
        // FIFO cannot hold the test: after the limit a writer opens and
        // closes the FIFO, the blocked read sees its end, and the test fails.
        let finished = DispatchSemaphore(value: 0)
        let parsed = ParsedOutput()
        Thread.detachNewThread {
            do {
                let file = try FeedFile.open(path: path, name: "xxe.xml")
                var output = FeedOutput<StockOffer>(file: "xxe.xml")
                _ = NoomStockAdapter().parse(file, into: &output)
                parsed.set(.success(output))
            } catch {
                parsed.set(.failure(error))
            }
            finished.signal()
        }
        if finished.wait(timeout: .now() + 60) == .timedOut {
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            _ = finished.wait(timeout: .now() + 60)
            Issue.record("the parser blocked on the FIFO: it tried to read an entity")
            return
        }
        let result = try #require(try parsed.value?.get())
        #expect(result.failure?.reason == .unsafeXML)
        #expect(result.accepted == 0)
    }

    @Test func billionLaughsIsRefusedQuickly() {
        var entities = "<!ENTITY lol \"lol\">"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            entities += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">"
        }
        let text = Self.document(items: "<item aptcode=\"A1\"><name>&lol9;</name><price net=\"1\" vatRate=\"9\"/><stock>1</stock></item>",
                                 header: "<!DOCTYPE stockExport [\(entities)]>\n")
        // Refused at the DOCTYPE: no entity is ever expanded (were one, this
        // would run out of memory rather than return).
        let (output, _) = parse(text)
        #expect(output.failure?.reason == .unsafeXML)
        #expect(output.read == 0)
    }

    @Test func recognisesByRootElementAndNamespaceNotByName() {
        let directory = TemporaryDirectory()
        func file(_ text: String) -> FeedFile {
            try! FeedFile.open(path: directory.write("any.dat", text: text), name: "any.dat")
        }
        #expect(adapter.recognises(file(Self.document(items: ""))))
        #expect(adapter.recognises(file("<!-- c --><n:stockExport xmlns:n=\"urn:noom:stock:2\"/>")))
        #expect(!adapter.recognises(file("<stockExport xmlns=\"urn:noom:stock:1\"/>")))
        #expect(!adapter.recognises(file("<reimbursementList/>")))
        // A DOCTYPE does not hide the root: the file is claimed, then refused as unsafe.
        #expect(adapter.recognises(file("<?xml version=\"1.0\"?>\n<!DOCTYPE s [<!ENTITY a \"b\">]>\n<stockExport xmlns=\"urn:noom:stock:2\"/>")))
    }
}

/// The parse's result, handed from its thread to the test's.
private final class ParsedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<FeedOutput<StockOffer>, any Error>?
    var value: Result<FeedOutput<StockOffer>, any Error>? { lock.withLock { result } }
    func set(_ value: Result<FeedOutput<StockOffer>, any Error>) { lock.withLock { result = value } }
}
