import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// Adversarial feeds: each is rejected cleanly (a reason, no crash, no hang,
/// nothing read that was not given) and the rest of the run loads.
@Suite struct HostileInputTests {
    /// A feeds folder with one good RAX feed plus the hostile file; returns the run's report.
    private func run(hostile name: String, bytes: [UInt8], mapping: String? = nil) throws -> RunReport {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        var good = RAXFeedBuilder(pharmacyID: "1", exportedAt: "20240101T1200")
        good.item("GOOD", price: "1,00")
        temporary.write("feeds/rax_good.txt", bytes: good.bytes)
        temporary.write("feeds/\(name)", bytes: bytes)
        var mappings = RepositoryFiles.mappingsDirectory
        if let mapping {
            mappings = temporary.subdirectory("mappings")
            temporary.write("mappings/hostile.mapping.toml", text: mapping)
        }
        let options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: "\(temporary.path)/s", mappingsDirectory: mappings,
                                    dryRun: true, parseThreads: 2)
        let report = try ImportRun(options: options).run()
        #expect(report.feeds.first { $0.file == "rax_good.txt" }?.outcome == .loaded, "the good feed must still load")
        #expect(report.rowCounts["offers", default: 0] >= 1)
        for feed in report.feeds { #expect(feed.read == feed.accepted + feed.rejected) }
        return report
    }

    private func outcome(_ report: RunReport, _ file: String) -> FeedResult? { report.feeds.first { $0.file == file } }

    static let noomHead = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    static func noom(_ items: String, count: Int = 1, generated: String = "2024-05-19T23:05:00+03:00") -> String {
        """
        <stockExport xmlns="urn:noom:stock:2" version="2.1" generated="\(generated)"><pharmacy id="2">X</pharmacy>
        <items currency="EUR">\(items)</items><summary itemCount="\(count)"/></stockExport>
        """
    }
    static let item = "<item aptcode=\"A\"><name>N</name><price net=\"1.00\" vatRate=\"9\"/><stock>1</stock></item>"

    @Test func xxeAndBillionLaughs() throws {
        let xxe = Self.noomHead + "<!DOCTYPE stockExport [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n" + Self.noom(Self.item.replacingOccurrences(of: ">N<", with: ">&x;<"))
        #expect(outcome(try run(hostile: "xxe.xml", bytes: Array(xxe.utf8)), "xxe.xml")?.message?.hasPrefix("unsafe_xml") == true)
        var entities = "<!ENTITY a \"aaaaaaaaaa\">"
        for level in 1...12 { entities += "<!ENTITY a\(level) \"" + String(repeating: "&a\(level == 1 ? "" : String(level - 1));", count: 10) + "\">" }
        let laughs = Self.noomHead + "<!DOCTYPE stockExport [\(entities)]>\n" + Self.noom(Self.item.replacingOccurrences(of: ">N<", with: ">&a12;<"))
        #expect(outcome(try run(hostile: "laughs.xml", bytes: Array(laughs.utf8)), "laughs.xml")?.message?.hasPrefix("unsafe_xml") == true)
    }

    @Test func deeplyNestedXML() throws {
        let depth = 100_000
        let nested = String(repeating: "<x>", count: depth) + String(repeating: "</x>", count: depth)
        let report = try run(hostile: "deep.xml", bytes: Array((Self.noomHead + Self.noom(Self.item + nested)).utf8))
        let feed = try #require(outcome(report, "deep.xml"))
        #expect(feed.reason == "limit_exceeded")
        #expect(feed.message == "limit_exceeded at line 3: elements are nested deeper than 256 (limit element_depth)")
    }

    /// libxml2 2.9.14 checks an element's attributes for duplicates in
    /// quadratic time: 300,000 of them in one 2.4 MB tag ran past five
    /// minutes. The tag is stopped before libxml2 parses it, in well under a
    /// second here; the test asks only that the run ends and says why.
    @Test func threeHundredThousandAttributes() throws {
        let attributes = (0..<300_000).map { " a\($0)=\"1\"" }.joined()
        let item = "<item aptcode=\"A\"\(attributes)><name>N</name><price net=\"1.00\" vatRate=\"9\"/><stock>1</stock></item>"
        let report = try run(hostile: "attributes.xml", bytes: Array((Self.noomHead + Self.noom(Self.item + "\n" + item)).utf8))
        let feed = try #require(outcome(report, "attributes.xml"))
        #expect(feed.outcome == .rejected)
        #expect(feed.message == "limit_exceeded at line 4: an element has more attributes than 512 (limit attributes_per_element)")
    }

    /// A Noom feed cut open at `head`, 100 MB of one byte, then `tail`: the
    /// single value or text run is stopped at its limit, never held whole.
    private func hundredMegabytes(after head: String, then tail: String, named name: String) throws -> FeedResult {
        let start = "<stockExport xmlns=\"urn:noom:stock:2\" version=\"2.1\" generated=\"2024-05-19T23:05:00+03:00\">"
        var bytes = Array((Self.noomHead + start + head).utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "A"), count: 100 << 20)
        bytes += Array(tail.utf8)
        return try #require(outcome(try run(hostile: name, bytes: bytes), name))
    }

    @Test func aHundredMegabyteAttributeOrText() throws {
        let attribute = try hundredMegabytes(after: "<pharmacy id=\"2\">X</pharmacy>\n<items currency=\"EUR\"><item aptcode=\"",
                                             then: "\"/></items></stockExport>", named: "attribute.xml")
        #expect(attribute.outcome == .rejected)
        #expect(attribute.message == "limit_exceeded at line 3: an attribute value is longer than 1048576 bytes (limit attribute_bytes)")
        let text = try hundredMegabytes(after: "<pharmacy id=\"2\">", then: "</pharmacy></stockExport>", named: "text.xml")
        #expect(text.message == "limit_exceeded at line 2: text between two tags is longer than 8388608 bytes (limit text_bytes)")
    }

    @Test func aHundredMegabyteLineInRAX() throws {
        var bytes = Array("H;RAX;3.2;3;A;20240101T1200;EUR\r\nI;".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "A"), count: 100 << 20)
        let report = try run(hostile: "rax_long.txt", bytes: bytes)
        let feed = try #require(outcome(report, "rax_long.txt"))
        #expect(feed.outcome == .rejected)
        #expect(feed.message == "limit_exceeded at line 2: line 2 is longer than 1048576 bytes (limit line_bytes)")
    }

    /// A line over a record's 64 KiB but under the file's limit is a record
    /// of its own (`line_too_long`, its line named); its quantity is then
    /// missing from the trailer's sum, which rejects the rest.
    @Test func aLongLineInRAXIsARecordReject() throws {
        var rax = RAXFeedBuilder(pharmacyID: "3", exportedAt: "20240101T1200")
        for index in 0..<40 { rax.item("R\(index)", name: index == 7 ? String(repeating: "N", count: 200_000) : "N") }
        let report = try run(hostile: "rax_line.txt", bytes: rax.bytes)
        let feed = try #require(outcome(report, "rax_line.txt"))
        #expect(feed.reason == "trailer_mismatch")
        #expect(feed.rejectsByReason == [.lineTooLong: 1, .trailerMismatch: 39])
        #expect(report.rejects.first { $0.file == "rax_line.txt" && $0.reason == .lineTooLong }?.line == 9)
    }

    @Test func aHundredMegabyteLineInCSV() throws {
        let mapping = """
        [match]
        filename = "long_*.csv"
        [format]
        delimiter = ";"
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
        var bytes = Array("shop;code;name;price;qty;date\n4;A;".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "N"), count: 100 << 20)
        let report = try run(hostile: "long_1.csv", bytes: bytes, mapping: mapping)
        let feed = try #require(outcome(report, "long_1.csv"))
        #expect(feed.outcome == .rejected)
        #expect(feed.message == "limit_exceeded at line 2: a field on line 2 is longer than 1048576 bytes (limit field_bytes)")
    }

    @Test func invalidUTF8AndInvalidCP1257() throws {
        let noom = Array((Self.noomHead + Self.noom(Self.item)).utf8)
        let at = noom.firstIndex(of: UInt8(ascii: "N"))! // inside <name>N</name>
        let broken = Array(noom.prefix(at)) + [0xC3, 0x28, 0xFF] + Array(noom.dropFirst(at))
        #expect(outcome(try run(hostile: "bad_utf8.xml", bytes: broken), "bad_utf8.xml")?.outcome == .rejected)

        let rax = CP1257Encoder.encode("H;RAX;3.2;3;A;20240101T1200;EUR\r\n") + Array("I;B1;;;N".utf8) + [0x81, 0x98]
            + Array(";P;;;1,00;1\r\nI;B2;;;OK;P;;;1,00;1\r\nT;2;2\r\n".utf8)
        let feed = try #require(outcome(try run(hostile: "rax_cp.txt", bytes: rax), "rax_cp.txt"))
        // One of two records bad is over the reject-rate gate: the feed is rejected whole, cleanly.
        #expect(feed.outcome == .rejected)
        #expect(feed.read == 2)
    }

    @Test func nulBytesAndAMidFileBOM() throws {
        var rax = RAXFeedBuilder(pharmacyID: "3", exportedAt: "20240101T1200")
        for index in 0..<40 { rax.item("R\(index)") }
        var bytes = rax.bytes
        let secondLine = bytes.firstIndex(of: 10)! + 1
        bytes.insert(contentsOf: [0xEF, 0xBB, 0xBF], at: secondLine + 5) // BOM inside record 1
        let feed = try #require(outcome(try run(hostile: "rax_bom.txt", bytes: bytes), "rax_bom.txt"))
        #expect(feed.rejectsByReason == [.badEncoding: 1])
        #expect(feed.accepted == 39)

        let noom = Array((Self.noomHead + Self.noom(Self.item)).utf8)
        let withNUL = noom.prefix(200) + [0] + noom.dropFirst(200)
        #expect(outcome(try run(hostile: "nul.xml", bytes: Array(withNUL)), "nul.xml")?.outcome == .rejected)

        let bomInText = Self.noomHead + Self.noom(Self.item.replacingOccurrences(of: ">N<", with: ">N\u{FEFF}X<"))
        let text = try #require(outcome(try run(hostile: "bom_text.xml", bytes: Array(bomInText.utf8)), "bom_text.xml"))
        #expect(text.rejectsByReason.keys.contains(.badEncoding) || text.rejectsByReason.keys.contains(.rejectRateExceeded))
    }

    @Test func emptyAndZeroByteFiles() throws {
        let report = try run(hostile: "rax_empty.txt", bytes: [])
        #expect(outcome(report, "rax_empty.txt")?.outcome == .unrecognised)
        let blank = try run(hostile: "blank.xml", bytes: Array("\n\n   \n".utf8))
        #expect(outcome(blank, "blank.xml")?.outcome == .unrecognised)
    }

    @Test func numbersThatOverflowSixtyFourBits() throws {
        var rax = RAXFeedBuilder(pharmacyID: "3", exportedAt: "20240101T1200")
        rax.item("BIG1", price: "92233720368547758080,00")
        rax.item("BIG2", quantity: "92233720368547758080")
        rax.trailer = "T;2;92233720368547758081"
        let feed = try #require(outcome(try run(hostile: "rax_big.txt", bytes: rax.bytes), "rax_big.txt"))
        #expect(feed.read == 2)
        #expect(feed.outcome == .rejected) // both records bad: over the reject-rate gate
        let noom = Self.noomHead + Self.noom("<item aptcode=\"A\"><name>N</name><price net=\"99999999999999999999999.99\" vatRate=\"9\"/><stock>99999999999999999999</stock></item>")
        #expect(outcome(try run(hostile: "big.xml", bytes: Array(noom.utf8)), "big.xml")?.rejected == 1)
    }

    @Test func datesOutOfRange() throws {
        var rax = RAXFeedBuilder(pharmacyID: "3", exportedAt: "99991231T2359")
        rax.item("A")
        #expect(outcome(try run(hostile: "rax_date.txt", bytes: rax.bytes), "rax_date.txt")?.rejectsByReason == [.badHeader: 1])
        let noom = Self.noomHead + Self.noom(Self.item, generated: "0000-13-45T25:61:00+03:00")
        #expect(outcome(try run(hostile: "date.xml", bytes: Array(noom.utf8)), "date.xml")?.outcome == .rejected)
    }

    @Test func pathLikeNamesAndIdsStayData() throws {
        // A pharmacy id made of path pieces is only ever data; a hidden file is reported, not read.
        var rax = RAXFeedBuilder(pharmacyID: "../../etc", exportedAt: "20240101T1200")
        rax.item("P1")
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("in/feeds")
        temporary.write("in/feeds/rax_path.txt", bytes: rax.bytes)
        temporary.write("in/feeds/..rax_hidden.txt", bytes: rax.bytes)
        let options = ImportOptions(feedsDirectory: "\(feeds)/../feeds", snapshotsDirectory: "\(temporary.path)/in/s",
                                    mappingsDirectory: RepositoryFiles.mappingsDirectory, parseThreads: 2)
        let report = try ImportRun(options: options).run()
        #expect(report.feeds.first { $0.file == "..rax_hidden.txt" }?.outcome == .skipped)
        let query = try SnapshotQuery(try #require(report.snapshotPath))
        #expect(query.value("SELECT id FROM pharmacies") == "../../etc")
        let outside = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(outside == ["in"])
    }
}
