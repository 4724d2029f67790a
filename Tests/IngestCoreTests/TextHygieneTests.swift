import IngestCore
import Testing

/// FEEDS.md §12 "Text hygiene": what a code or a name may hold.
struct TextHygieneTests {
    @Test func controlCharactersAndLineBreaksAreFoundWhereverTheyAre() {
        #expect(TextHygiene.problem(in: "IBUMETIN 400MG") == nil)
        #expect(TextHygiene.problem(in: "TAB\tSEPARATED") == nil, "a tab is allowed")
        #expect(TextHygiene.problem(in: "ÕUNAÄÄDIKAS ŠÜŽ €") == nil, "letters of two-byte and three-byte UTF-8 are not controls")
        #expect(TextHygiene.problem(in: "A\nB") == "a line break")
        #expect(TextHygiene.problem(in: "A\rB") == "a line break")
        #expect(TextHygiene.problem(in: "A\u{1B}[2J") == "the control character \\u{1B}")
        #expect(TextHygiene.problem(in: "A\u{7F}") == "the control character \\u{7F}")
        #expect(TextHygiene.problem(in: "NEL\u{85}") == "the control character \\u{85}", "C1, 0xC2 0x85 in UTF-8")
        #expect(TextHygiene.problem(in: "Â\u{A0}") == nil, "0xC2 that begins a letter or a no-break space is no control")
        #expect(TextHygiene.problem(in: "LINE\u{2028}SEP") == "the control character \\u{2028}")
        #expect(TextHygiene.problem(in: "PARA\u{2029}SEP") == "the control character \\u{2029}")
        #expect(TextHygiene.problem(in: "EN–DASH ‘QUOTED’") == nil, "0xE2 that begins punctuation is no control")
    }

    @Test func lengthIsCountedInCharactersNotBytes() {
        #expect(TextHygiene.problem(in: String(repeating: "A", count: 500), longest: 500) == nil)
        #expect(TextHygiene.problem(in: String(repeating: "A", count: 501), longest: 500) == "501 characters, over the 500 allowed")
        // 500 characters of two bytes each, and 500 of a letter and a combining mark: both within.
        #expect(TextHygiene.problem(in: String(repeating: "Ä", count: 500), longest: 500) == nil)
        #expect(TextHygiene.problem(in: String(repeating: "e\u{301}", count: 500), longest: 500) == nil)
        #expect(TextHygiene.problem(in: String(repeating: "Ä", count: 501), longest: 500) == "501 characters, over the 500 allowed")
        #expect(TextHygiene.problem(in: String(repeating: "A", count: 9_000)) == nil, "no limit without `longest`")
    }
}
