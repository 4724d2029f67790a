import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

@Suite struct RAXStockAdapterTests {
    let adapter = RAXStockAdapter()

    private func parse(_ builder: RAXFeedBuilder) -> (FeedOutput<StockOffer>, StockFeedHeader?) {
        parse(bytes: builder.bytes)
    }

    private func parse(bytes: [UInt8], adapter: RAXStockAdapter = RAXStockAdapter()) -> (FeedOutput<StockOffer>, StockFeedHeader?) {
        try! AdapterHarness.parse(adapter, bytes: bytes, name: "rax.txt")
    }

    @Test func version32InKroonsFromTheSpecExample() throws {
        let file = try FeedFile.open(path: RepositoryFiles.feed("rax_5060_201012302305.txt"), name: "rax_5060")
        #expect(adapter.recognises(file))
        var output = FeedOutput<StockOffer>(file: "rax_5060")
        let header = adapter.parse(file, into: &output)
        #expect(output.failure == nil)
        #expect(header?.pharmacyID == "5060")
        #expect(header?.exportedAt.iso8601 == "2010-12-30T23:05:00+02:00")
        #expect(output.records.map(\.priceCents) == [237, 371, 830, 1000])
        #expect(output.records.map(\.quantity) == [14, 30, 7, 3])
        #expect(output.records[0].packageCode == "1144976")
        #expect(output.records[0].gtin == "04740086007123")
        #expect(output.records[3].name == "KALAÕLI KAPSLID N100")
        #expect(output.records[3].producer == "MÖLLER'S")
        #expect(output.records[3].packageCode == nil && output.records[3].atc == nil)
    }

    @Test func version31InEuroFromTheSpecExample() throws {
        let file = try FeedFile.open(path: RepositoryFiles.feed("rax_31937_201105192305.txt"), name: "rax_31937")
        var output = FeedOutput<StockOffer>(file: "rax_31937")
        _ = adapter.parse(file, into: &output)
        #expect(output.failure == nil)
        #expect(output.records.map(\.aptcode) == ["MM0007145", "MM0034978", "MM0200001"])
        #expect(output.records.map(\.priceCents) == [237, 379, 450])
        #expect(output.records[0].packageCode == nil) // 3.1 has no package code field
        #expect(output.records[2].name == "ŠAMPOON ÕRN 200ML")
        #expect(output.records[2].producer == "ŽIRAF OÜ")
    }

    @Test func lfLineEndingsAndCodesNormalised() {
        var feed = RAXFeedBuilder(version: "3.1")
        feed.lineEnding = "\n"
        feed.item(" mm01 ", gtin: "4740086000124", atc: "m01ae01", price: "3,79", quantity: "11")
        let (output, _) = parse(feed)
        #expect(output.records.first?.aptcode == "MM01")
        #expect(output.records.first?.atc == "M01AE01")
        #expect(output.records.first?.gtin == "04740086000124")
    }

    /// One record per reason the spec names (and the ones this adapter adds),
    /// each rejected alone while its neighbours load.
    @Test(arguments: [
        ("I;A1;;;NAME;P;;;1.234,00;1", RejectReason.badPrice),
        ("I;A1;;;NAME;P;;;1 234,00;1", .badPrice),
        ("I;A1;;;NAME;P;;;1,234;1", .badPrice),
        ("I;A1;;;NAME;P;;;;1", .badPrice),
        ("I;A1;;;NAME;P;;;-1,00;1", .badPrice),
        ("I;A1;;;NAME;P;;;99999999999999999999,00;1", .badPrice),
        ("I;A1;;;NAME;P;;;1,00;-3", .badQuantity),
        ("I;A1;;;NAME;P;;;1,00;x", .badQuantity),
        ("I;A1;;;NAME;P;;;1,00;99999999999999999999", .badQuantity),
        ("I;A1;1144975;;NAME;P;;;1,00;1", .badPackageCode),
        ("I;A1;114497;;NAME;P;;;1,00;1", .badPackageCode),
        ("I;A1;;4740086000125;NAME;P;;;1,00;1", .badGTINCheckDigit),
        ("I;A1;;47400;NAME;P;;;1,00;1", .badGTIN),
        ("I;A1;;;NAME;P;;1,00;1", .badFieldCount),
        ("I;A1;;;NAME;P;;;;1,00;1", .badFieldCount),
        ("I;;;;NAME;P;;;1,00;1", .missingField),
        ("I;A1;;;;P;;;1,00;1", .missingField),
        ("I;A0;;;NAME;P;;;1,00;1", .duplicateKey),
        ("X;A1;;;NAME;P;;;1,00;1", .badRecordType),
    ])
    func rejectsOneBadRecord(line: String, reason: RejectReason) {
        var feed = RAXFeedBuilder()
        feed.item("A0", price: "2,00", quantity: "2")
        feed.raw(line)
        feed.item("A2", price: "3,00", quantity: "3")
        if line.hasSuffix("99999999999999999999") { feed.trailer = "T;3;100000000000000000004" }
        let (output, _) = parse(feed)
        #expect(output.failure == nil)
        #expect(output.records.map(\.aptcode) == ["A0", "A2"])
        #expect(output.rejects.count == 1)
        #expect(output.rejects.first?.reason == reason)
        #expect(output.rejects.first?.line == 3)
        #expect(output.rejects.first?.file == "rax.txt")
    }

    @Test func rejectNamesTheFieldAndKey() {
        var feed = RAXFeedBuilder()
        feed.item("mm7", price: "1.234,00")
        let (output, _) = parse(feed)
        let reject = output.rejects.first
        #expect(reject?.field == "price")
        #expect(reject?.key == "MM7")
        #expect(reject?.message.contains("1.234,00") == true)
    }

    static let bomLines: [(line: [UInt8], found: Bool)] = {
        let prefix: [UInt8] = Array("I;".utf8)
        var lines: [(line: [UInt8], found: Bool)] = []
        lines.append(([0xEF, 0xBB, 0xBF], true))
        lines.append((prefix + [0x41, 0xEF, 0xBB, 0xBF], true))
        lines.append((prefix + [0xEF, 0x41, 0xEF, 0xBB, 0xBF, 0x41], true))
        lines.append((prefix + [0xEF, 0xBB], false))
        lines.append((prefix + [0xEF, 0xEF, 0xBB, 0x41], false))
        lines.append((Array("I;A1;ĻOTI;P".utf8), false))
        lines.append(([0xEF, 0xBB], false))
        lines.append(([], false))
        return lines
    }()

    @Test(arguments: RAXStockAdapterTests.bomLines)
    func aUTF8ByteOrderMarkIsFoundAnywhereInALine(case: (line: [UInt8], found: Bool)) {
        #expect(`case`.line.withUnsafeBufferPointer { RAXStockAdapter.containsUTF8BOM($0) } == `case`.found)
    }

    /// Price and quantity are read from their bytes, never decoded to text,
    /// yet a byte cp1257 leaves undefined there is an encoding fault as in a name.
    @Test func invalidCP1257BytesRejectTheRecord() {
        let bytes = CP1257Encoder.encode("H;RAX;3.2;5060;A;20101230T2305;EUR\r\n")
            + Array("I;A1;;;NA".utf8) + [0x81] + Array("ME;P;;;1,00;1\r\n".utf8)
            + Array("I;A2;;;NUL".utf8) + [0x00] + Array(";P;;;1,00;1\r\n".utf8)
            + Array("I;A3;;;NAME;P;;;1,0".utf8) + [0x81] + Array(";1\r\n".utf8)
            + Array("I;A4;;;NAME;P;;;1,00;".utf8) + [0x98] + Array("\r\n".utf8)
            + Array("I;A5;;;OK;P;;;1,00;1\r\nT;5;4\r\n".utf8)
        let (output, _) = parse(bytes: bytes)
        #expect(output.failure == nil)
        #expect(output.rejects.map(\.reason) == [.badEncoding, .badEncoding, .badEncoding, .badEncoding])
        #expect(output.rejects.map(\.field) == ["name", "name", "price", "quantity"])
        #expect(output.rejects.map(\.key) == ["A1", "A2", "A3", "A4"])
        #expect(output.records.map(\.aptcode) == ["A5"])
    }

    @Test func restrictedGTINIsAWarningNotAReject() {
        var feed = RAXFeedBuilder()
        feed.item("A1", gtin: "2001234567893")
        let (output, _) = parse(feed)
        #expect(output.accepted == 1)
        #expect(output.warnings.map(\.code) == [.restrictedGTIN])
    }

    /// The warning belongs to records that are kept, as in every stock
    /// format: a rejected record has its reject and nothing more.
    @Test func aRejectedRecordGetsNoRestrictedGTINWarning() {
        var feed = RAXFeedBuilder()
        feed.item("A1", gtin: "2001234567893", name: "")
        feed.item("A2", gtin: "2001234567893", price: "x")
        let (output, _) = parse(feed)
        #expect(output.rejects.map(\.reason) == [.missingField, .badPrice])
        #expect(output.warnings.isEmpty)
    }

    // MARK: Whole-feed rejections

    @Test func truncatedFileIsRejectedWhole() {
        var feed = RAXFeedBuilder()
        feed.item("A1")
        feed.item("A2")
        feed.includeTrailer = false
        let (output, _) = parse(feed)
        #expect(output.failure?.reason == .trailerMismatch)
        let whole = output.rejectingAll()
        #expect(whole.accepted == 0)
        #expect(whole.read == 2)
        #expect(whole.rejects.map(\.reason) == [.trailerMismatch, .trailerMismatch])
        #expect(whole.rejects.map(\.key) == ["A1", "A2"])
    }

    @Test(arguments: ["T;3;2", "T;2;5", "T;x;2", "T;2"])
    func trailerThatDisagreesRejectsTheFeed(trailer: String) {
        var feed = RAXFeedBuilder()
        feed.item("A1")
        feed.item("A2")
        feed.trailer = trailer
        let (output, _) = parse(feed)
        #expect(output.failure?.reason == .trailerMismatch)
    }

    @Test func trailerCountsInvalidLinesAndNegativeQuantities() {
        var feed = RAXFeedBuilder()
        feed.item("A1", quantity: "4")
        feed.item("A2", quantity: "-3")   // bad_quantity, but summed as written
        feed.item("A3", price: "x", quantity: "2")
        feed.trailer = "T;3;3"
        let (output, _) = parse(feed)
        #expect(output.failure == nil)
        #expect(output.accepted == 1)
        #expect(output.rejects.map(\.reason) == [.badQuantity, .badPrice])
    }

    @Test func dataAfterTheTrailerIsCorruption() {
        var feed = RAXFeedBuilder()
        feed.item("A1")
        var text = feed.text
        text += "I;A9;;;NAME;P;;;1,00;1\r\n"
        let (output, _) = parse(bytes: CP1257Encoder.encode(text))
        #expect(output.failure?.reason == .trailerMismatch)
    }

    @Test func blankTrailingLinesAreNotRecords() {
        var feed = RAXFeedBuilder()
        feed.item("A1")
        let (output, _) = parse(bytes: CP1257Encoder.encode(feed.text + "\r\n\r\n"))
        #expect(output.failure == nil)
        #expect(output.read == 1)
    }

    @Test(arguments: [
        ("H;RAX;3.3;5060;A;20101230T2305;EUR", RejectReason.unsupportedVersion),
        ("H;RAX;3.2;5060;A;20101230T2305;USD", .unsupportedCurrency),
        ("H;RAX;3.2;5060;A;20101330T2305;EUR", .badHeader),
        ("H;RAX;3.2;;A;20101230T2305;EUR", .badHeader),
        ("H;RAX;3.2;5060;A;20101230T2305", .badHeader),
    ])
    func badHeaderRejectsEveryRecord(header: String, reason: RejectReason) {
        let text = header + "\r\nI;A1;;;NAME;P;;;1,00;1\r\nT;1;1\r\n"
        let (output, _) = parse(bytes: CP1257Encoder.encode(text))
        #expect(output.failure?.reason == reason)
        let whole = output.rejectingAll()
        #expect(whole.read == 1 && whole.rejected == 1 && whole.accepted == 0)
        #expect(whole.rejects.first?.reason == reason)
    }

    @Test func overlongLineIsRejectedWithoutBufferingIt() {
        var feed = RAXFeedBuilder()
        feed.item("A1")
        feed.raw("I;A2;;;" + String(repeating: "N", count: 5000) + ";P;;;1,00;1")
        feed.item("A3")
        let small = RAXStockAdapter(maxLineLength: 1000)
        // The line's quantity cannot be read, so a trailer that counts it
        // disagrees and the feed is rejected whole…
        let (whole, _) = parse(bytes: feed.bytes, adapter: small)
        #expect(whole.failure?.reason == .trailerMismatch)
        // …while a trailer without it lets the rest load beside one reject.
        feed.trailer = "T;3;2"
        let (output, _) = parse(bytes: feed.bytes, adapter: small)
        #expect(output.failure == nil)
        #expect(output.rejects.map(\.reason) == [.lineTooLong])
        #expect(output.records.map(\.aptcode) == ["A1", "A3"])
    }

    @Test func readsHeaderWithoutParsingTheFile() throws {
        let file = try FeedFile.open(path: RepositoryFiles.feed("rax_31937_201105192305.txt"), name: "x")
        let header = try adapter.readHeader(file)
        #expect(header.pharmacyID == "31937")
        #expect(header.pharmacyName == "SELMA APTEEK")
        #expect(header.format == "RAX 3.1")
    }
}
