/// Any text a client types, as an FTS5 query that cannot be a syntax
/// error: the text is cut into words the way the index's `unicode61`
/// tokenizer cuts names (letters and digits; everything else separates),
/// and each word becomes a quoted prefix, all required, each in the name,
/// the producer or the active substance (READ_API.md, Version 2):
/// `doxy-m*` → `{name producer active_substance} : ("doxy"* AND "m"*)`.
/// Quoting leaves no operator, column name or bracket of the client's to parse.
public enum ItemSearchExpression {
    /// nil when the text has no word: nothing to search for.
    public static func match(_ text: String) -> String? {
        let words = self.words(text).prefix(16) // a longer text is not a search
        guard !words.isEmpty else { return nil }
        return "{name producer active_substance} : (" + words.map { "\"\($0)\"*" }.joined(separator: " AND ") + ")"
    }

    /// The words of `text`, as the index cuts them.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var word = ""
        for scalar in text.unicodeScalars {
            if isWordScalar(scalar) {
                word.unicodeScalars.append(scalar)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }

    /// unicode61's token characters: letters, numbers and private-use (`Co`) scalars.
    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            return true
        default:
            return false
        }
    }
}
