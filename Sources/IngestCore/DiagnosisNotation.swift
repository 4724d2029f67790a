/// One parsed item of a published diagnosis list: a code or a range, with
/// the footnote marker that ties it to an `info` line.
public struct DiagnosisRange: Sendable, Hashable {
    public var from: String
    public var to: String
    /// `*`, `**`, `***`, `†` or nil.
    public var marker: String?

    public init(from: String, to: String, marker: String? = nil) {
        self.from = from
        self.to = to
        self.marker = marker
    }
}

/// The published notation of reimbursement diagnoses (FEEDS.md §6):
/// `(A50-A53)*`, `I21*; I22*; I25.2*`, `E10-E11; E13-14`, `M05-M06; M08, M45*, L40.5`,
/// `C00-C97, D00-D09**`. Items are separated by `;` or `,`; an item is a code
/// or a range, optionally in parentheses, optionally followed by a marker.
public enum DiagnosisNotation {
    public enum Item: Sendable, Hashable {
        case range(DiagnosisRange)
        /// The item's text as published and why it is not a diagnosis.
        case invalid(text: String, reason: String)
    }

    public static let markers = ["***", "**", "*", "†"]

    public static func parse(_ text: String) -> [Item] {
        text.split(whereSeparator: { $0 == ";" || $0 == "," })
            .map { $0.trimmed }
            .filter { !$0.isEmpty }
            .map(parseItem)
    }

    static func parseItem(_ raw: String) -> Item {
        var body = Substring(raw)
        var marker: String?
        for candidate in markers where body.hasSuffix(candidate) {
            marker = candidate
            body = body.dropLast(candidate.count)
            break
        }
        body = Substring(body.trimmed)
        if body.hasPrefix("(") {
            guard body.hasSuffix(")") else { return .invalid(text: raw, reason: "unbalanced parenthesis") }
            body = Substring(body.dropFirst().dropLast().trimmed)
        }
        let parts = body.split(separator: "-", omittingEmptySubsequences: false).map { $0.trimmed.uppercased() }
        guard (1...2).contains(parts.count) else { return .invalid(text: raw, reason: "not a code or a range") }
        let from = parts[0]
        guard isCode(from) else { return .invalid(text: raw, reason: "'\(from)' is not an ICD-10 code") }
        var to = parts.count == 2 ? parts[1] : from
        // `E13-14` means E13-E14: the letter carries over.
        if let first = to.first, first.isNumber { to = String(from.prefix(1)) + to }
        guard isCode(to) else { return .invalid(text: raw, reason: "'\(to)' is not an ICD-10 code") }
        guard from <= to else { return .invalid(text: raw, reason: "range ends (\(to)) before it starts (\(from))") }
        return .range(DiagnosisRange(from: from, to: to, marker: marker))
    }

    /// `[A-Z][0-9]{2}(\.[0-9A-Z]{1,2})?`
    public static func isCode(_ code: String) -> Bool {
        let bytes = Array(code.utf8)
        guard bytes.count == 3 || (5...6).contains(bytes.count) else { return false }
        func upper(_ b: UInt8) -> Bool { b >= 65 && b <= 90 }
        func digit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
        guard upper(bytes[0]), digit(bytes[1]), digit(bytes[2]) else { return false }
        if bytes.count == 3 { return true }
        return bytes[3] == 46 && bytes[4...].allSatisfy { upper($0) || digit($0) }
    }
}
