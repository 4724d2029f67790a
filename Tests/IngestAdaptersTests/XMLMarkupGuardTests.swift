import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

@Suite struct XMLMarkupGuardTests {
    /// Scans `text` in pieces of `piece` bytes, as reads would hand it over.
    private func scan(_ text: String, piece: Int) -> FeedFailure? {
        var markup = XMLMarkupGuard()
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(start + piece, bytes.count)
            if let failure = bytes[start..<end].withUnsafeBytes({ markup.scan($0) }) { return failure }
            start = end
        }
        return nil
    }

    private static func attributes(_ count: Int) -> String { (0..<count).map { " a\($0)=\"=\"" }.joined() }

    /// `=` and `>` inside comments, CDATA, instructions and quoted values are not markup.
    @Test func countsOnlyRealAttributes() {
        let many = Self.attributes(600)
        let document = "<?xml version=\"1.0\"?>\n<!-- \(many) > -- -->\n<r a='>'\(Self.attributes(511))>"
            + "<![CDATA[<x\(many)>]]><?pi\(many)?></r>"
        for piece in [1, 3, 4096] { #expect(scan(document, piece: piece) == nil, "piece \(piece)") }
    }

    @Test func stopsAtTheFirstAttributePastTheLimit() {
        for piece in [1, 7, 4096] {
            let failure = scan("<r>\n\n<item\(Self.attributes(513))/>", piece: piece)
            #expect(failure == FeedFailure(reason: .limitExceeded, message: "an element has more attributes than 512 (limit attributes_per_element)", line: 3))
        }
    }

    @Test func sizesOfValuesTextAndComments() {
        let value = String(repeating: "v", count: ParseLimits.attributeBytes + 1)
        #expect(scan("<r a=\"\(value)\"/>", piece: 65_536)?.message == "an attribute value is longer than 1048576 bytes (limit attribute_bytes)")
        #expect(scan("<r a=\"\(value.dropLast())\"/>", piece: 65_536) == nil)
        let text = String(repeating: "t", count: ParseLimits.textBytes + 1)
        #expect(scan("<r>\(text)</r>", piece: 65_536)?.message == "text between two tags is longer than 8388608 bytes (limit text_bytes)")
        #expect(scan("<r><!--\(text)--></r>", piece: 65_536)?.message == "a comment is longer than 8388608 bytes (limit text_bytes)")
    }

    /// The limits hold at their exact byte however the reads cut the file, and
    /// the failure names the line of the byte past the limit.
    @Test func limitsAtTheirExactByteAcrossReads() {
        let text = String(repeating: "t", count: ParseLimits.textBytes - 3)
        for piece in [65_536, 1_000_003] {
            #expect(scan("<r>\n\n\(text)\n</r>", piece: piece) == nil, "piece \(piece)")
            let failure = scan("<r>\n\n\(text)\nt\n</r>", piece: piece)
            #expect(failure == FeedFailure(reason: .limitExceeded, message: "text between two tags is longer than 8388608 bytes (limit text_bytes)", line: 4))
        }
        // Four values of 1 MiB less 9 bytes fill a tag to near 4 MiB; spaces and a fifth value reach the limit
        // exactly (2 x's) or cross it on the sixth x of ten, inside the value.
        let value = String(repeating: "v", count: ParseLimits.attributeBytes - 9)
        let names = (0..<4).map { " a\($0)=\"\(value)\"" }.joined()
        let padding = String(repeating: " ", count: ParseLimits.tagBytes - names.utf8.count - 11)
        func tag(_ xs: Int) -> String { "<r" + names + padding + " b=\"" + String(repeating: "x", count: xs) + "\"/>" }
        #expect(tag(2).utf8.count == ParseLimits.tagBytes)
        for piece in [65_536, 999_999] {
            #expect(scan(tag(2), piece: piece) == nil, "piece \(piece)")
            #expect(scan("\n" + tag(10), piece: piece)
                == FeedFailure(reason: .limitExceeded, message: "a start tag is longer than 4194304 bytes (limit tag_bytes)", line: 2))
        }
    }

    /// A start tag's plain bytes (names, spaces, line breaks) count to its
    /// limit to the byte, crossed in one read or many, and the failure names
    /// the line of the first byte past it.
    @Test func aStartTagOfNamesAndSpacesStopsAtItsExactByte() {
        let head = "<item" + String(repeating: " ", count: 100) + "\n"
        func tag(_ length: Int) -> String {
            head + String(repeating: " ", count: length - head.utf8.count - 3) + "a=1>"
        }
        #expect(tag(ParseLimits.tagBytes).utf8.count == ParseLimits.tagBytes + 1, "the > past the limit")
        for piece in [1_000_003, 65_536, 4_096] {
            #expect(scan("<r>\n" + tag(ParseLimits.tagBytes - 1) + "</item></r>", piece: piece) == nil, "piece \(piece)")
            #expect(scan("<r>\n" + tag(ParseLimits.tagBytes + 1) + "</item></r>", piece: piece)
                == FeedFailure(reason: .limitExceeded, message: "a start tag is longer than 4194304 bytes (limit tag_bytes)", line: 3),
                    "piece \(piece)")
            // Exactly the limit passes; one byte more fails, be it the `>` or a space before it.
            func spaces(_ count: Int) -> String { "<item" + String(repeating: " ", count: count) + "></item>" }
            #expect(scan(spaces(ParseLimits.tagBytes - 6), piece: piece) == nil, "piece \(piece)")
            #expect(scan(spaces(ParseLimits.tagBytes - 5), piece: piece)?.message == "a start tag is longer than 4194304 bytes (limit tag_bytes)")
            #expect(scan(spaces(ParseLimits.tagBytes - 4), piece: piece)?.message == "a start tag is longer than 4194304 bytes (limit tag_bytes)")
            #expect(scan("<r>\n<item\n" + String(repeating: "n", count: ParseLimits.tagBytes) + "/></r>", piece: piece)
                == FeedFailure(reason: .limitExceeded, message: "a start tag is longer than 4194304 bytes (limit tag_bytes)", line: 3),
                    "a name that long, piece \(piece)")
        }
    }

    /// The word-at-a-time count equals a byte-by-byte one, for bytes next to
    /// a line feed's value (0x0B, 0x8A: `^ 0x0A` leaves 0x01, 0x80) and at every length and offset.
    @Test func countsLineFeedsAsBytesDo() {
        var random = TestRandom(defaultSeed: 70)
        let alphabet: [UInt8] = [0x0A, 0x0B, 0x8A, 0x09, 0x00, 0xFF, 0x7F, 0x80, 0x41]
        for length in [1, 7, 8, 9, 15, 16, 17, 100, 1_000] {
            for _ in 0..<20 {
                let bytes = (0..<length).map { _ in alphabet.randomElement(using: &random)! }
                for start in [0, min(3, length)] {
                    let count = bytes[start...].filter { $0 == 0x0A }.count
                    let counted = bytes.withUnsafeBufferPointer { XMLMarkupGuard.newlines(in: $0.baseAddress! + start, count: length - start) }
                    #expect(counted == count, "\(bytes), \(random.replay)")
                }
            }
        }
    }
}
