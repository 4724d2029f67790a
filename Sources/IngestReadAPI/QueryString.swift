import Foundation

/// A request's query string read as HTML forms write it
/// (`application/x-www-form-urlencoded`): `+` is a space (READ_API.md,
/// Version 3: a search box sends `ibumetin+400`), `%2B` a plus, and keys
/// are decoded like values. Hummingbird's `queryParameters` keeps `+`.
public enum QueryString {
    /// Each parameter's first value; a repeated one counts once, as
    /// `ReadQuery` documents. Text whose escapes are not UTF-8 stays as sent.
    public static func parameters(_ query: String?) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: "=")
            let key = decoded(pair[..<(equals ?? pair.endIndex)])
            let value = equals.map { decoded(pair[pair.index(after: $0)...]) } ?? ""
            if parameters[key] == nil { parameters[key] = value }
        }
        return parameters
    }

    private static func decoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
