import Testing
@testable import IngestCore

@Suite struct DiagnosisNotationTests {
    private func ranges(_ text: String) -> [DiagnosisRange] {
        DiagnosisNotation.parse(text).compactMap { if case .range(let range) = $0 { return range } else { return nil } }
    }

    @Test func everyPublishedNotation() {
        #expect(ranges("(A50-A53)*") == [.init(from: "A50", to: "A53", marker: "*")])
        #expect(ranges("I21*; I22*; I25.2*; Z45*; Z95*") == [
            .init(from: "I21", to: "I21", marker: "*"), .init(from: "I22", to: "I22", marker: "*"),
            .init(from: "I25.2", to: "I25.2", marker: "*"), .init(from: "Z45", to: "Z45", marker: "*"),
            .init(from: "Z95", to: "Z95", marker: "*"),
        ])
        #expect(ranges("E10-E11; E13-14; E89.1; O24; P70.2") == [
            .init(from: "E10", to: "E11"), .init(from: "E13", to: "E14"), .init(from: "E89.1", to: "E89.1"),
            .init(from: "O24", to: "O24"), .init(from: "P70.2", to: "P70.2"),
        ])
        #expect(ranges("M05-M06; M08, M45*, L40.5") == [
            .init(from: "M05", to: "M06"), .init(from: "M08", to: "M08"), .init(from: "M45", to: "M45", marker: "*"),
            .init(from: "L40.5", to: "L40.5"),
        ])
        #expect(ranges("C00-C97, D00-D09**") == [.init(from: "C00", to: "C97"), .init(from: "D00", to: "D09", marker: "**")])
        #expect(ranges("G35***; (K50)†") == [.init(from: "G35", to: "G35", marker: "***"), .init(from: "K50", to: "K50", marker: "†")])
    }

    @Test(arguments: ["A5", "AA50", "A50-A40", "(A50-A53", "A50.123", "50", "A50--A53", "hüpertensioon", "A50-B"])
    func malformedItemsAreInvalid(item: String) {
        let parsed = DiagnosisNotation.parse("M05; \(item); M06")
        #expect(parsed.count == 3)
        guard case .invalid = parsed[1] else { Issue.record("\(item) parsed as \(parsed[1])"); return }
        #expect(parsed.first == .range(.init(from: "M05", to: "M05")))
        #expect(parsed.last == .range(.init(from: "M06", to: "M06")))
    }

    @Test func emptyItemsAreSkipped() {
        #expect(DiagnosisNotation.parse(" ; M05;; ").count == 1)
        #expect(DiagnosisNotation.parse("").isEmpty)
    }
}
