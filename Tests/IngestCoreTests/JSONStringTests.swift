import Foundation
import IngestCore
import Testing

/// Issue 47, item 7: one JSON escaper for the answers and the journals,
/// writing what `JSONEncoder` writes (slashes left alone), so a journal
/// line and an answer escape the same text the same way.
@Suite struct JSONStringTests {
    @Test func everyCharacterIsWrittenAsJSONEncoderWritesIt() throws {
        let controls = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })
        let texts = ["", "plain", "a\"b\\c/d", controls, "õäöü Ž 💊", "tab\there\r\nand\u{8}\u{c}", "\u{7f}\u{2028}"]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        for text in texts {
            var bytes: [UInt8] = []
            JSONString.append(text, to: &bytes)
            #expect(bytes == Array(try encoder.encode(text)), "\(text.debugDescription)")
            #expect(try JSONDecoder().decode(String.self, from: Data(bytes)) == text)
        }
    }
}
