import IngestCore
import Testing

/// The tables' padding: to the width, by characters, never cutting a value.
@Suite struct TextColumnsTests {
    @Test func padsByCharactersAndNeverCuts() {
        #expect(TextColumns.left("Tõrva", 7) == "Tõrva  " && TextColumns.right("42", 5) == "   42")
        #expect(TextColumns.left("longer than", 4) == "longer than" && TextColumns.right("12345", 3) == "12345")
        #expect(TextColumns.left("", 2) == "  " && TextColumns.right("x", 0) == "x")
    }
}
