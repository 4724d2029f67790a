/// What feed text may hold (FEEDS.md §12, "Text hygiene"), and how it is
/// shown on a terminal. A code or a name with a line break or a control
/// character (C0 but tab, DEL, C1) is a fault of the export; shown raw, a
/// clear-screen code in a price field cleared the operator's screen.
public enum TextHygiene {
    /// A name longer than this (in characters) is rejected `bad_text`.
    public static let longestName = 500

    /// Why `text` cannot stand as a code or a name, nil when it can.
    public static func problem(in text: String, longest: Int? = nil) -> String? {
        for scalar in text.unicodeScalars where isControl(scalar) {
            return scalar == "\n" || scalar == "\r" ? "a line break" : "the control character \(visible(String(scalar)))"
        }
        if let longest, text.count > longest { return "\(text.count) characters, over the \(longest) allowed" }
        return nil
    }

    /// C0 but tab, DEL, C1, and the Unicode line and paragraph separators.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
            || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// `text` with every control character (tab too) written as an escape,
    /// `\n`, `\r`, `\t` or `\u{1B}`, for a line on a terminal. Backslashes
    /// stay as they are: file names come escaped already (`FeedPath`).
    public static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || $0 == "\t" }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar): result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
