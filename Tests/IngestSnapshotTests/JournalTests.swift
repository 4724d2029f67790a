import Foundation
import IngestCore
import IngestTestSupport
import Testing
@testable import IngestSnapshot

@Suite struct JournalTests {
    private static func reject(_ index: Int, _ reason: RejectReason = .badPrice) -> Reject {
        Reject(file: "feed \"ä\"/\\x.txt", line: index, key: "K\(index)\t\u{1}", reason: reason,
               message: "price '\(index)'\nis\r bad", field: index % 2 == 0 ? "price" : nil)
    }

    /// The hand-written JSON lines are byte for byte what JSONEncoder writes, and read back as the entries.
    @Test func linesAreWhatJSONEncoderWrites() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for entry in [Self.reject(1), Self.reject(2)] {
            var bytes: [UInt8] = []
            entry.appendJSONLine(to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == String(decoding: try encoder.encode(entry), as: UTF8.self) + "\n")
        }
        let warning = Warning(file: "a/b", line: 0, key: "", code: .unknownPharmacy, message: "\u{7f}ü\"")
        var bytes: [UInt8] = []
        warning.appendJSONLine(to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == String(decoding: try encoder.encode(warning), as: UTF8.self) + "\n")
    }

    /// Past what memory holds, entries go to the file; the sample keeps the
    /// first of each kind, the counts all; appending another journal keeps order.
    @Test func spillsCountsSamplesAndKeepsOrder() throws {
        let temporary = TemporaryDirectory()
        var first = Journal<Reject>(spillPath: "\(temporary.path)/first.jsonl")
        var second = Journal<Reject>(spillPath: "\(temporary.path)/second.jsonl")
        let count = Journal<Reject>.heldInMemory + 5
        for index in 0..<count { try first.append(Self.reject(index)) }
        for index in 0..<3 { try second.append(Self.reject(count + index, .duplicateKey)) }
        for index in 0..<200 { try second.append(Self.reject(count + 3 + index)) }
        try first.append(second)
        second.discard()
        #expect(first.total == count + 203)
        #expect(first.counts == [.badPrice: count + 200, .duplicateKey: 3])
        #expect(first.count == Journal<Reject>.samplePerKind + 3)
        #expect(first.filter { $0.reason == .badPrice }.map(\.line) == Array(0..<Journal<Reject>.samplePerKind))
        try first.save(to: "\(temporary.path)/all.jsonl")
        let lines = try String(contentsOfFile: "\(temporary.path)/all.jsonl", encoding: .utf8).split(separator: "\n")
        let decoded = try lines.map { try JSONDecoder().decode(Reject.self, from: Data($0.utf8)) }
        #expect(decoded.map(\.line) == Array(0..<(count + 203)))
        #expect(decoded[count] == Self.reject(count, .duplicateKey))
        #expect(!FileManager.default.fileExists(atPath: "\(temporary.path)/second.jsonl"))
    }
}
