import Foundation
import IngestCore

/// The two `code;name` lists (ATC, FEEDS.md §8; ICD-10, §9) share a header,
/// so a file is told apart by its codes: a 1-, 4-, 5- or 7-character code
/// without a dot is ATC, a dotted code is ICD-10. A file of only 3-character
/// codes is ambiguous by content alone; then its name decides.
enum CodeListKind {
    case atc, icd10

    /// By the header and the first codes, read as the file is (quotes,
    /// BOM and any line ends honoured): a quoted `"A00"` is the code `A00`.
    static func sniff(_ file: FeedFile) -> CodeListKind? {
        let reader = DelimitedFileReader(delimiter: UInt8(ascii: ";"))
        let rows = reader.rows(of: file.sampleWithoutBOM, limit: 512, wholeFile: file.sampleIsWholeFile)
        guard let header = rows.first ?? reader.firstRow(of: file.sampleWithoutBOM),
              header.map({ String(decoding: $0, as: UTF8.self).trimmed.lowercased() }) == ["code", "name"] else { return nil }
        let codes = rows.dropFirst().compactMap { row -> String? in
            guard let code = row.first, !code.isEmpty else { return nil }
            return String(decoding: code, as: UTF8.self).trimmed
        }
        if codes.contains(where: { $0.contains(".") }) { return .icd10 }
        if codes.contains(where: { [1, 4, 5, 7].contains($0.count) }) { return .atc }
        let name = file.name.lowercased()
        if name.contains("atc") { return .atc }
        if name.contains("icd") { return .icd10 }
        return nil
    }

    /// Every data row of a `code;name` file with its line.
    static func rows(_ file: FeedFile, into output: inout some RowSink) {
        do {
            var headerSeen = false
            try DelimitedFileReader(delimiter: UInt8(ascii: ";")).read(file) { row in
                if !headerSeen { headerSeen = true; return }
                let code = String(validating: row.fields[0], as: UTF8.self)
                // The key names the row wherever the code could be read.
                let key = code?.trimmed.uppercased() ?? ""
                guard row.fields.count == 2 else {
                    output.reject(line: row.line, key: key, reason: .badFieldCount, message: "row has \(row.fields.count) fields, expected code;name")
                    return
                }
                guard let code, let name = String(validating: row.fields[1], as: UTF8.self) else {
                    output.reject(line: row.line, key: key, reason: .badEncoding, message: "row is not UTF-8 text")
                    return
                }
                output.row(code: code.trimmed.uppercased(), name: name.trimmed, line: row.line)
            }
        } catch let failure as FeedFailure {
            output.fail(failure)
        } catch {
            output.fail(FeedFailure(reason: .unreadable, message: "\(error)"))
        }
    }
}

protocol RowSink {
    mutating func row(code: String, name: String, line: Int)
    mutating func reject(line: Int, key: String, reason: RejectReason, message: String)
    mutating func fail(_ failure: FeedFailure)
}

/// The ATC classification: levels by code length, parents by cutting the
/// code to the previous level. Rows are checked after the whole file is
/// read, so a child may come before its parent; a group whose parent is
/// missing (or rejected) is rejected too.
public struct ATCAdapter: FeedAdapter {
    public let name = "atc"
    public let summary = "ATC classification (FEEDS.md §8), CSV code;name; recognised by its header and ATC-shaped codes"
    public let kind = FeedKind.atc
    static let levelLengths = [1, 3, 4, 5, 7]

    public init() {}

    public func recognises(_ file: FeedFile) -> Bool { CodeListKind.sniff(file) == .atc }

    /// Level 1 `A`, 2 `A02`, 3 `A02B`, 4 `A02BC`, 5 `A02BC01`; nil for any other shape.
    public static func level(of code: String) -> Int? {
        let bytes = Array(code.utf8)
        guard let level = levelLengths.firstIndex(of: bytes.count).map({ $0 + 1 }) else { return nil }
        func upper(_ i: Int) -> Bool { bytes[i] >= 65 && bytes[i] <= 90 }
        func digit(_ i: Int) -> Bool { bytes[i] >= 48 && bytes[i] <= 57 }
        let shape: [(Int) -> Bool] = [upper, digit, digit, upper, upper, digit, digit]
        return (0..<bytes.count).allSatisfy { shape[$0]($0) } ? level : nil
    }

    public func parse(_ file: FeedFile, into output: inout FeedOutput<ATCGroup>) -> NoHeader? {
        struct Collector: RowSink {
            var rows: [(code: String, name: String, line: Int)] = []
            var early: [Reject] = []
            var failure: FeedFailure?
            let file: String
            mutating func row(code: String, name: String, line: Int) { rows.append((code, name, line)) }
            mutating func reject(line: Int, key: String, reason: RejectReason, message: String) {
                early.append(Reject(file: file, line: line, key: key, reason: reason, message: message))
            }
            mutating func fail(_ failure: FeedFailure) { self.failure = failure }
        }
        var collector = Collector(file: file.name)
        CodeListKind.rows(file, into: &collector)

        // Settle which codes stand, parents first (shorter codes first).
        var accepted: [String: ATCGroup] = [:]
        enum Verdict { case accepted(ATCGroup), rejected(Reject) }
        var verdicts: [Int: Verdict] = [:]
        for (index, row) in collector.rows.enumerated().sorted(by: { $0.element.code.count < $1.element.code.count }) {
            func reject(_ reason: RejectReason, _ message: String) {
                verdicts[index] = .rejected(Reject(file: file.name, line: row.line, key: row.code, reason: reason, message: message, field: "code"))
            }
            guard let level = Self.level(of: row.code) else { reject(.badATCCode, "'\(row.code)' is not an ATC code of 1, 3, 4, 5 or 7 characters"); continue }
            let parent = level == 1 ? nil : String(row.code.prefix(Self.levelLengths[level - 2]))
            if let parent, accepted[parent] == nil { reject(.missingParent, "parent group \(parent) is not in the file (or was rejected)"); continue }
            guard accepted[row.code] == nil else { reject(.duplicateKey, "\(row.code) appears earlier in the file"); continue }
            let group = ATCGroup(code: row.code, name: row.name, level: level, parent: parent, line: row.line)
            accepted[row.code] = group
            verdicts[index] = .accepted(group)
        }
        var results: [(line: Int, verdict: Verdict)] = collector.early.map { ($0.line, .rejected($0)) }
        results += collector.rows.indices.map { (collector.rows[$0].line, verdicts[$0]!) }
        for (_, verdict) in results.sorted(by: { $0.line < $1.line }) {
            switch verdict {
            case .accepted(let group): output.accept(group)
            case .rejected(let reject): output.reject(line: reject.line, key: reject.key, reason: reject.reason, message: reject.message, field: reject.field)
            }
        }
        output.failure = collector.failure
        return nil
    }
}

/// The ICD-10 code list, used to flag reimbursement diagnoses it lacks.
public struct ICD10Adapter: FeedAdapter {
    public let name = "icd10"
    public let summary = "ICD-10 code list (FEEDS.md §9), CSV code;name; recognised by its header and ICD-10-shaped codes"
    public let kind = FeedKind.icd10

    public init() {}

    public func recognises(_ file: FeedFile) -> Bool { CodeListKind.sniff(file) == .icd10 }

    public func parse(_ file: FeedFile, into output: inout FeedOutput<ICD10Code>) -> NoHeader? {
        struct Sink: RowSink {
            var output: FeedOutput<ICD10Code>
            var seen = Set<String>()
            mutating func row(code: String, name: String, line: Int) {
                guard DiagnosisNotation.isCode(code) else {
                    return output.reject(line: line, key: code, reason: .badICD10Code, message: "'\(code)' is not an ICD-10 code", field: "code")
                }
                guard seen.insert(code).inserted else {
                    return output.reject(line: line, key: code, reason: .duplicateKey, message: "\(code) appears earlier in the file", field: "code")
                }
                output.accept(ICD10Code(code: code, name: name, line: line))
            }
            mutating func reject(line: Int, key: String, reason: RejectReason, message: String) {
                output.reject(line: line, key: key, reason: reason, message: message)
            }
            mutating func fail(_ failure: FeedFailure) { output.failure = failure }
        }
        var sink = Sink(output: output)
        CodeListKind.rows(file, into: &sink)
        output = sink.output
        return nil
    }
}
