import Foundation

/// The one form text is compared in (READ_API.md, Version 3): Unicode NFC,
/// for feed text and search text alike, so a decomposed `õ` (o + U+0303)
/// from one export is the same letter as the composed one of another; and
/// the folded form the search index compares without case or diacritics.
public enum CanonicalText {
    /// `text` in NFC. Almost every name is composed already: only text with a
    /// combining scalar (or a Hangul jamo) goes through Foundation.
    public static func nfc(_ text: String) -> String {
        guard mayBeDecomposed(text) else { return text }
        return text.precomposedStringWithCanonicalMapping
    }

    public static func nfc(_ text: String?) -> String? { text.map { nfc($0) } }

    /// `text` lower-case and without diacritics, as SQLite's `unicode61`
    /// tokenizer with `remove_diacritics 2` folds it: `ŠAMPOON` → `sampoon`.
    public static func folded(_ text: String) -> String {
        var folded = ""
        for scalar in text.lowercased().decomposedStringWithCanonicalMapping.unicodeScalars
        where scalar.properties.generalCategory != .nonspacingMark {
            folded.unicodeScalars.append(scalar)
        }
        return folded
    }

    private static func mayBeDecomposed(_ text: String) -> Bool {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return false }
        return text.unicodeScalars.contains { scalar in
            scalar.properties.canonicalCombiningClass != .notReordered || (0x1100...0x11FF).contains(scalar.value)
        }
    }
}
