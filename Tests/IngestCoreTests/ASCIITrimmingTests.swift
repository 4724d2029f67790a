import IngestCore
import Testing

/// Feed fields lose their ASCII padding (space, tab, CR, LF) at both ends,
/// and nothing else: not the padding inside, not a no-break space, not a
/// letter's UTF-8 bytes; a `String` and a `Substring` trim alike.
@Suite struct ASCIITrimmingTests {
    @Test(arguments: [
        ("", ""), ("   ", ""), ("ab", "ab"), ("  ab  ", "ab"), ("\t\r\nab\n", "ab"), ("a b", "a b"),
        ("  ŠAMPOON ÕRN 200ML   ", "ŠAMPOON ÕRN 200ML"), ("\u{A0}ab\u{A0}", "\u{A0}ab\u{A0}"), (" \u{A0} ", "\u{A0}"),
        ("ÕÕ  ", "ÕÕ"), ("  ü", "ü"), ("x\u{0}  ", "x\u{0}"), ("\u{B}ab\u{C}", "\u{B}ab\u{C}"),
    ])
    func paddingGoesAndNothingElse(_ text: String, _ expected: String) {
        #expect(text.trimmed == expected)
        #expect(Substring(text).trimmed == expected)
        #expect(text.trimmed.utf8.elementsEqual(expected.utf8))
    }

    @Test func aFieldWithoutPaddingIsTheSameString() {
        let field = String(repeating: "MM0034371;", count: 3)
        #expect(field.trimmed == field)
    }
}
