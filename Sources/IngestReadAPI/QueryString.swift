/// A request's query string read as HTML forms write it
/// (`application/x-www-form-urlencoded`): `+` is a space (READ_API.md,
/// Version 3: a search box sends `ibumetin+400`), `%2B` a plus, and keys
/// are decoded like values. Hummingbird's `queryParameters` keeps `+`.
///
/// Decoded on the UTF-8 bytes: every request passes here, and Foundation's
/// `removingPercentEncoding` and `replacingOccurrences` cost `q=a` a tenth
/// of its throughput under wrk (paired, `make bench-serve`'s queries).
public enum QueryString {
    /// Each parameter's first value; a repeated one counts once, as
    /// `ReadQuery` documents. Text whose escapes are not UTF-8 (or not
    /// escapes) stays as sent.
    public static func parameters(_ query: String?) -> [String: String] {
        var parameters: [String: String] = [:]
        guard let query else { return parameters }
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let key = decoded(pair[..<(equals ?? pair.endIndex)])
            let value = equals.map { decoded(pair[pair.index(after: $0)...]) } ?? ""
            if parameters[key] == nil { parameters[key] = value }
        }
        return parameters
    }

    private static func decoded(_ bytes: Substring.UTF8View.SubSequence) -> String {
        guard bytes.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return String(Substring(bytes)) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        var escaped = false
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), let high = hex(bytes, bytes.index(index, offsetBy: 1, limitedBy: bytes.endIndex)),
               let low = hex(bytes, bytes.index(index, offsetBy: 2, limitedBy: bytes.endIndex)) {
                out.append(high << 4 | low)
                escaped = true
                index = bytes.index(index, offsetBy: 3)
                continue
            }
            if byte == UInt8(ascii: "%") { return String(Substring(bytes)).replacing("+", with: " ") } // a stray %: as sent
            out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index = bytes.index(after: index)
        }
        // Escapes that are not UTF-8 leave the text as sent (with its spaces).
        guard let text = String(validating: out, as: UTF8.self) else { return escaped ? String(Substring(bytes)).replacing("+", with: " ") : "" }
        return text
    }

    private static func hex(_ bytes: Substring.UTF8View.SubSequence, _ index: Substring.UTF8View.Index?) -> UInt8? {
        guard let index, index < bytes.endIndex else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return bytes[index] - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return bytes[index] - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return bytes[index] - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
