import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

@Suite struct DelimitedFileReaderTests {
    private func rows(_ bytes: [UInt8], delimiter: Character = ",") throws -> [(Int, [String])] {
        var result: [(Int, [String])] = []
        try DelimitedFileReader(delimiter: delimiter.asciiValue!).read(FeedFile(name: "f.csv", bytes: bytes)) { row in
            result.append((row.line, row.fields.map { String(decoding: $0, as: UTF8.self) }))
        }
        return result
    }

    @Test func rfc4180Quoting() throws {
        let result = try rows(Array("a,\"b,c\",\"say \"\"hi\"\"\"\r\n\"multi\r\nline\",x,y\r\nlast,,\r\n".utf8))
        #expect(result.map(\.1) == [["a", "b,c", "say \"hi\""], ["multi\r\nline", "x", "y"], ["last", "", ""]])
        #expect(result.map(\.0) == [1, 2, 4])
    }

    @Test func bomAndBlankTrailingLinesAreDropped() throws {
        let result = try rows([0xEF, 0xBB, 0xBF] + Array("h1;h2\nv1;v2\n\n\n".utf8), delimiter: ";")
        #expect(result.map(\.1) == [["h1", "h2"], ["v1", "v2"]])
    }

    @Test func malformedQuotingFailsWithTheLine() throws {
        #expect(throws: FeedFailure.self) { try rows(Array("a,b\nc,\"unterminated\n".utf8)) }
        do {
            _ = try rows(Array("a,b\nc,d\"e\"x,f\n".utf8))
        } catch let failure as FeedFailure {
            #expect(failure.reason == .malformedCSV)
            #expect(failure.line == 2)
        }
    }

    @Test func rowsAcrossTheSmallFirstChunkAndLaterChunksStayWhole() throws {
        // A quoted field with a line break straddles the first (small) chunk's
        // end, and many rows straddle the later chunks' ends.
        let long = String(repeating: "é", count: DelimitedFileReader.firstChunkSize / 2 - 3)
        var text = "h1,h2\n\"\(long)\nx\",1\n"
        for index in 0..<40_000 { text += "r\(index),\"v \(index)\"\n" }
        let result = try rows(Array(text.utf8))
        #expect(result.count == 40_002)
        #expect(result[1].1 == ["\(long)\nx", "1"])
        #expect(result[1].0 == 2)
        #expect(result.last?.1 == ["r39999", "v 39999"])
        #expect(result.last?.0 == 40_003)
    }

    @Test func anOversizedFieldFailsInsteadOfGrowingWithoutBound() {
        let huge = Array(repeating: UInt8(ascii: "x"), count: (1 << 20) + 10)
        #expect(throws: FeedFailure.self) { try rows(Array("a,b\n".utf8) + huge + [10]) }
    }
}
