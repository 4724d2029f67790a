/// What feed text may hold (FEEDS.md §12, "Text hygiene"), and how it is
/// shown on a terminal. A code or a name with a line break or a control
/// character (C0 but tab, DEL, C1) is a fault of the export; shown raw, a
/// clear-screen code in a price field cleared the operator's screen.
public enum TextHygiene {
    /// A name longer than this (in characters) is rejected `bad_text`.
    public static let longestName = 500

    /// Why `text` cannot stand as a code or a name, nil when it can.
    ///
    /// Every code and name of every row passes here, so the common case is
    /// decided on the UTF-8 bytes: no byte that can begin a control
    /// character, and no more bytes than `longest` (then no more characters
    /// either). Scalars and characters are counted only past that; walking
    /// the scalars and counting the characters of every name was 7 % of a
    /// mapped CSV's parse (perf, `ingest check`).
    public static func problem(in text: String, longest: Int? = nil) -> String? {
        var text = text
        let (suspect, bytes) = text.withUTF8 { utf8 -> (Bool, Int) in
            // C0 and DEL are single bytes; C1 is 0xC2 0x80–0x9F, U+2028/U+2029 0xE2 0x80 0xA8/0xA9.
            (utf8.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 }, utf8.count)
        }
        if suspect {
            for scalar in text.unicodeScalars where isControl(scalar) {
                return scalar == "\n" || scalar == "\r" ? "a line break" : "the control character \(visible(String(scalar)))"
            }
        }
        if let longest, bytes > longest, text.count > longest { return "\(text.count) characters, over the \(longest) allowed" }
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
