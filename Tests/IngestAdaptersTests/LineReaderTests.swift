import IngestTestSupport
import Testing
@testable import IngestAdapters

@Suite struct LineReaderTests {
    private func lines(_ bytes: [UInt8], max: Int = 100, chunk: Int = 16) throws -> [String] {
        var result: [String] = []
        try LineReader(file: FeedFile(name: "f", bytes: bytes), maxLineLength: max, chunkSize: chunk).forEachLine { line, number in
            switch line {
            case .text(let bytes): result.append("\(number):\(String(decoding: bytes, as: UTF8.self))")
            case .tooLong(let length): result.append("\(number):TOO LONG \(length)")
            }
        }
        return result
    }

    @Test func splitsCRLFAndLFAndKeepsALastLineWithoutTerminator() throws {
        #expect(try lines(Array("a\r\nbb\nccc".utf8)) == ["1:a", "2:bb", "3:ccc"])
        #expect(try lines(Array("a\n\nb\n".utf8)) == ["1:a", "2:", "3:b"])
        #expect(try lines([]) == [])
    }

    @Test func linesSpanningChunksAreWhole() throws {
        let text = (1...20).map { String(repeating: "x", count: $0) }.joined(separator: "\n")
        let result = try lines(Array(text.utf8), max: 40, chunk: 7)
        #expect(result.count == 20)
        #expect(result.last == "20:" + String(repeating: "x", count: 20))
    }

    @Test func anOverlongLineIsReportedOnceAndSkipped() throws {
        let text = "ok\n" + String(repeating: "y", count: 500) + "\nafter\n" + String(repeating: "z", count: 300)
        let result = try lines(Array(text.utf8), max: 50, chunk: 64)
        #expect(result == ["1:ok", "2:TOO LONG 500", "3:after", "4:TOO LONG 300"])
    }
}
