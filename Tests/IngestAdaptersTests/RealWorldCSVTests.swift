import Foundation
import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

/// Issue 15: files as agencies, spreadsheets and sister sites write them.
@Suite struct RealWorldCSVTests {
    /// The same table written as real tools write it: every field quoted
    /// (R's write.csv, pandas QUOTE_ALL), a BOM, CRLF, CR-only line ends
    /// (old spreadsheets), UTF-16 with its BOM.
    static func variants(of plain: [UInt8], delimiter: UInt8) -> [(name: String, bytes: [UInt8])] {
        let text = String(decoding: plain, as: UTF8.self)
        let rows = DelimitedFileReader(delimiter: delimiter).rows(of: plain[...], limit: .max, wholeFile: true)
        let quoted = rows.map { row in
            row.map { "\"" + String(decoding: $0, as: UTF8.self).replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
                .joined(separator: String(UnicodeScalar(delimiter)))
        }.joined(separator: "\r\n") + "\r\n"
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        return [
            ("plain", plain),
            ("quoted", Array(quoted.utf8)),
            ("bom", [0xEF, 0xBB, 0xBF] + plain),
            ("crlf", Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8)),
            ("cr", Array(text.replacingOccurrences(of: "\n", with: "\r").utf8)),
            ("utf16", utf16),
        ]
    }

    /// Lives as long as the test: the adapters read the files after `open` returns.
    private let directory = TemporaryDirectory()

    private func open(_ name: String, _ bytes: [UInt8]) throws -> FeedFile {
        try FeedFile.open(path: directory.write(name, bytes: bytes), name: name)
    }

    private func sample(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.feed(name))))
    }

    @Test func theRegistryInEveryVariantGivesTheSameRows() throws {
        let plain = try sample("pharmacies.csv")
        let adapter = PharmacyRegistryAdapter()
        let expected = adapter.parse(try open("pharmacies.csv", plain))
        #expect(expected.accepted == 5 && expected.rejected == 0)
        for variant in Self.variants(of: plain, delimiter: UInt8(ascii: ",")) {
            let file = try open("pharmacies.csv", variant.bytes)
            #expect(adapter.recognises(file), "\(variant.name) not recognised")
            let output = adapter.parse(file)
            #expect(output.failure == nil, "\(variant.name)")
            #expect(output.records.map { [$0.id, $0.name, $0.address ?? "", $0.openHours ?? "", "\($0.latitude)"] }
                    == expected.records.map { [$0.id, $0.name, $0.address ?? "", $0.openHours ?? "", "\($0.latitude)"] }, "\(variant.name)")
            #expect(output.records.map(\.line) == expected.records.map(\.line), "\(variant.name) lines")
            #expect(output.rejects.map { [$0.line, $0.key] as [AnyHashable] } == expected.rejects.map { [$0.line, $0.key] as [AnyHashable] },
                    "\(variant.name) rejects")
        }
    }

    @Test func theATCAndICD10ListsInEveryVariantGiveTheSameRows() throws {
        let atcPlain = try sample("atc.csv")
        let atc = ATCAdapter().parse(try open("atc.csv", atcPlain))
        let icdPlain = try sample("icd10.csv")
        let icd = ICD10Adapter().parse(try open("icd10.csv", icdPlain))
        #expect(atc.accepted == 19 && icd.accepted == 19)
        for variant in Self.variants(of: atcPlain, delimiter: UInt8(ascii: ";")) {
            // A name that says nothing: the codes alone tell ATC from ICD-10.
            let file = try open("list.csv", variant.bytes)
            #expect(ATCAdapter().recognises(file) && !ICD10Adapter().recognises(file), "\(variant.name)")
            let output = ATCAdapter().parse(file)
            #expect(output.records.map { [$0.code, $0.name, "\($0.line)"] } == atc.records.map { [$0.code, $0.name, "\($0.line)"] }, "\(variant.name)")
        }
        for variant in Self.variants(of: icdPlain, delimiter: UInt8(ascii: ";")) {
            let file = try open("list.csv", variant.bytes)
            #expect(ICD10Adapter().recognises(file) && !ATCAdapter().recognises(file), "\(variant.name)")
            let output = ICD10Adapter().parse(file)
            #expect(output.records.map { [$0.code, $0.name, "\($0.line)"] } == icd.records.map { [$0.code, $0.name, "\($0.line)"] }, "\(variant.name)")
        }
    }

    @Test func aQuotedListOfThreeCharacterICD10CodesIsICD10() throws {
        let file = try open("icd10_chapters.csv", Array("\"code\";\"name\"\r\n\"A00\";\"Cholera\"\r\n\"A01\";\"Typhoid\"\r\n\"B15\";\"Hepatitis A\"\r\n".utf8))
        #expect(ICD10Adapter().recognises(file))
        #expect(!ATCAdapter().recognises(file))
        #expect(ICD10Adapter().parse(file).records.map(\.code) == ["A00", "A01", "B15"])
    }

    @Test func crOnlyLineEndsNumberEveryLine() throws {
        let text = "id,name,region,latitude,longitude\r1,A,X,59.1,24.1\r2,B,X,95.0,24.1\r3,C,X,59.3,24.3\r"
        let output = PharmacyRegistryAdapter().parse(try open("r.csv", Array(text.utf8)))
        #expect(output.records.map(\.line) == [2, 4])
        #expect(output.rejects.map(\.line) == [3])
        #expect(output.rejects.first?.key == "2")
    }

    @Test func aQuoteInsideAnUnquotedFieldIsData() throws {
        let text = "id,name,region,latitude,longitude\n1,APTEEK \"ERIS\" 5\",X,59.1,24.1\n2,B,X,59.2,24.2\n"
        let output = PharmacyRegistryAdapter().parse(try open("r.csv", Array(text.utf8)))
        #expect(output.failure == nil)
        #expect(output.records.map(\.name) == ["APTEEK \"ERIS\" 5\"", "B"])
    }

    @Test func aQuotedFieldThatNeverClosesFailsTheFileAtTheLineItOpened() throws {
        let text = "id,name,region,latitude,longitude\n1,A,X,59.1,24.1\n2,B,X,59.2,24.2\n3,\"C,X,59.3,24.3\n4,D,X,59.4,24.4\n"
        let output = PharmacyRegistryAdapter().parse(try open("r.csv", Array(text.utf8)))
        #expect(output.failure?.reason == .malformedCSV)
        #expect(output.failure?.line == 4)
        #expect(output.failure?.message == "a quoted field opened on line 4 is never closed")
        // The rows before it were read; rejected with the file, never lost.
        let whole = output.rejectingAll()
        #expect(whole.read == 2 && whole.rejected == 2 && whole.rejects.map(\.key) == ["1", "2"])
    }

    // MARK: Mapped feeds in the encodings sister sites send

    private func mapped(_ bytes: [UInt8], encoding: String) throws -> FeedOutput<StockOffer> {
        let directory = TemporaryDirectory()
        let adapter = try #require(MappedCSVStockAdapter(mapping: try MappingLoader.load(
            path: directory.write("chain.mapping.toml", text: MappedCSVStockAdapterTests.mapping(encoding: encoding)))))
        return try AdapterHarness.parse(adapter, bytes: bytes, name: "chain_1.csv", expectRecognised: true).0
    }

    @Test(arguments: [("windows-1252", "Ð"), ("iso-8859-13", "ēāš"), ("iso-8859-4", "ēāš"), ("utf-16", "ēāšÕ")])
    func aMappingNamesAnyCharsetIconvKnows(encoding: String, letters: String) throws {
        let text = MappedCSVStockAdapterTests.header + "7001;A1;NAME \(letters);1,00;2;2013-06-01\n"
        let bytes: [UInt8]
        if encoding == "utf-16" {
            bytes = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        } else {
            bytes = try #require(Self.encode(text, to: encoding))
        }
        #expect(bytes != Array(text.utf8))
        let output = try mapped(bytes, encoding: encoding)
        #expect(output.failure == nil)
        #expect(output.records.map(\.name) == ["NAME \(letters)"])
    }

    /// `text` in `charset`, by iconv (the other way round from the importer).
    static func encode(_ text: String, to charset: String) -> [UInt8]? {
        guard let converter = iconv_open(charset, "UTF-8"), converter != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var input = Array(text.utf8).map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: input.count * 4 + 8)
        var inLeft = input.count
        var outLeft = output.count
        let ok = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer: UnsafeMutablePointer<CChar>? = inBuffer.baseAddress
                var outPointer: UnsafeMutablePointer<CChar>? = outBuffer.baseAddress
                return iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) != -1
            }
        }
        return ok ? output.prefix(output.count - outLeft).map { UInt8(bitPattern: $0) } : nil
    }

    @Test func anEncodingRejectNamesItsRecordKey() throws {
        var bytes = Array((MappedCSVStockAdapterTests.header + "7001;A1;GOOD;1,00;2;2013-06-01\n7001;A2;BAD").utf8)
        bytes += [0xFF, 0xFE]
        bytes += Array(";1,00;2;2013-06-01\n".utf8)
        let output = try mapped(bytes, encoding: "UTF-8")
        #expect(output.rejects.map { [$0.key, $0.reason.rawValue, $0.field ?? ""] } == [["A2", "bad_encoding", "name"]])
    }

    @Test func aRAXFileSavedAsUTF8IsRejectedNeverStoredGarbled() throws {
        var feed = RAXFeedBuilder(pharmacyID: "5060", exportedAt: "20101230T2305")
        feed.item("A1", name: "PLAIN ASCII")
        feed.item("A2", name: "ŠAMPOON ÕRN 200ML")
        let utf8 = Array(feed.text.utf8)
        let (output, _) = try AdapterHarness.parse(RAXStockAdapter(), bytes: utf8, name: "rax.txt")
        #expect(output.failure?.reason == .wrongEncoding)
        #expect(output.failure?.line == 3)
        // The same export in Windows-1257 loads, and its letters are right.
        let (good, _) = try AdapterHarness.parse(RAXStockAdapter(), bytes: feed.bytes, name: "rax.txt")
        #expect(good.failure == nil)
        #expect(good.records.map(\.name) == ["PLAIN ASCII", "ŠAMPOON ÕRN 200ML"])
    }

    @Test func everyRejectNamesItsRecordKeyWhenTheKeyIsReadable() throws {
        var rax = RAXFeedBuilder(pharmacyID: "5060", exportedAt: "20101230T2305")
        rax.item("A1")
        rax.raw("X;A2;;;N;P;;;1,00;1")
        let (raxOutput, _) = try AdapterHarness.parse(RAXStockAdapter(), bytes: rax.bytes, name: "rax.txt")
        #expect(raxOutput.rejects.map { [$0.key, $0.reason.rawValue] } == [["A2", "bad_record_type"]])

        var registry = Array("id,name,region,latitude,longitude\n77,".utf8)
        registry += [0xFF, 0xFE]
        registry += Array(",X,59.1,24.1\n".utf8)
        let registryOutput = PharmacyRegistryAdapter().parse(try open("r.csv", registry))
        #expect(registryOutput.rejects.map { [$0.key, $0.reason.rawValue, $0.field ?? ""] } == [["77", "bad_encoding", "name"]])

        // A renamed mapped column rejects every row, each under its own aptcode.
        let renamed = "shop;code;title;price;qty;date\n7001;A1;X;1,00;2;2013-06-01\n7001;A2;Y;1,00;2;2013-06-01\n"
        let mapped = try mapped(Array(renamed.utf8), encoding: "UTF-8")
        #expect(mapped.failure?.reason == .badHeader)
        #expect(mapped.rejects.map(\.key) == ["A1", "A2"])
    }
}
