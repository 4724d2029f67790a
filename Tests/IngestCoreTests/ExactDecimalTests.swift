import Testing
@testable import IngestCore

@Suite struct ExactDecimalTests {
    @Test(arguments: [
        ("37,10", 3710, 2), ("0,5", 5, 1), ("1234,00", 123400, 2), ("0", 0, 0), ("007,5", 75, 1),
    ])
    func parsesDecimalComma(text: String, units: Int, scale: Int) {
        let value = ExactDecimal.parse(text, decimalSeparator: ",", maxFractionDigits: 2)
        #expect(value == ExactDecimal(units: Int128(units), scale: scale))
    }

    @Test(arguments: ["1.234,00", "1 234,00", "", ",5", "5,", "5,123", "-1,00", "+1,00", "1,2,3", "1e3", "١٢", "12,3a"])
    func rejectsEverythingElse(text: String) {
        #expect(ExactDecimal.parse(text, decimalSeparator: ",", maxFractionDigits: 2) == nil)
    }

    @Test func refusesMoreDigitsThanItCanHold() {
        #expect(ExactDecimal.parse(String(repeating: "9", count: 25), decimalSeparator: ",") == nil)
        #expect(ExactDecimal.parse(String(repeating: "9", count: 24), decimalSeparator: ",") != nil)
    }

    @Test func negativeOnlyWhenAllowed() {
        #expect(ExactDecimal.parse("-24.5", allowNegative: true) == ExactDecimal(units: -245, scale: 1))
        #expect(ExactDecimal.parse("-24.5") == nil)
    }

    @Test func printsItsExactValue() {
        #expect(ExactDecimal(units: 5, scale: 3).description == "0.005")
        #expect(ExactDecimal(units: -1234, scale: 2).description == "-12.34")
        #expect(Money.format(237) == "2.37")
    }
}
