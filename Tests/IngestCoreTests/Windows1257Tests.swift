import Testing
@testable import IngestCore

@Suite struct Windows1257Tests {
    @Test func decodesBalticLetters() {
        // Š Õ Ž Ü ā ē ī ū ų in cp1257
        let bytes: [UInt8] = [0xD0, 0xD5, 0xDE, 0xDC, 0xE2, 0xE7, 0xEE, 0xFB, 0xF8]
        #expect(Windows1257.shared.decode(bytes) == "ŠÕŽÜāēīūų")
        #expect(Windows1257.shared.decode(Array("plain".utf8)) == "plain")
    }

    @Test func refusesUndefinedBytesAndNUL() {
        #expect(Windows1257.shared.decode([0x41, 0x81]) == nil)  // 0x81 is undefined
        #expect(Windows1257.shared.decode([0x41, 0x00, 0x42]) == nil)
        #expect(!Windows1257.shared.defines(0x98))
        #expect(Windows1257.shared.defines(0xD0))
    }

    @Test func threeByteCharactersAndMixedTextDecode() {
        // € (0x80) and ’ (0x92) take three UTF-8 bytes each; the output buffer must hold them.
        #expect(Windows1257.shared.decode([0x80, 0x92, 0x80]) == "€’€")
        #expect(Windows1257.shared.decode(Array("ZIEDE ".utf8) + [0xDE, 0x80]) == "ZIEDE Ž€")
    }

    @Test func isTextAgreesWithDecode() {
        for value in 0...255 {
            let bytes: [UInt8] = [0x41, UInt8(value)]
            let decodable = Windows1257.shared.decode(bytes) != nil
            #expect(bytes.withUnsafeBufferPointer { Windows1257.shared.isText($0) } == decodable, "byte \(value)")
        }
    }
}
