import Foundation
import IngestReadAPI
import Testing

/// READ_API.md Version 3, "the diagnoses view": `q=dx` finds the items the
/// sample's reimbursement list gives a tier for a code (a listed range
/// includes it), with the tiers (75 brings the derived 90) and the code's
/// ICD-10 name; item details name each listed diagnosis.
@Suite struct DiagnosisAnswerTests {
    static func answer(_ icd: String, _ more: [String: String] = [:]) throws -> NSDictionary? {
        try SampleSnapshot.answer(["q": "dx", "icd": icd].merging(more) { $1 }) as? NSDictionary
    }

    @Test func itemsForADiagnosisWithTheirTiersAndTheCodesName() throws {
        // M05.3 is inside M05-M06 (IBUMETIN N10, 75 %).
        #expect(try Self.answer("m05.3") == [
            "c": "M05.3", "n": "Seropositiivne reumatoidartriit", "total": "1",
            "items": [["a": "MM0034978", "n": "IBUMETIN TBL 400MG N10", "p": "NYCOMED", "t": ["75", "90"]]],
        ] as NSDictionary)
        // E11 is in E10-E11 at 75 %; C50 in C00-C97 at 100 %: N30 both ways.
        #expect(try Self.answer("E11")?["items"] as? NSArray == [["a": "MM0034371", "n": "IBUMETIN TBL 400MG N30", "p": "NYCOMED", "t": ["75", "90"]]])
        #expect(try Self.answer("C50")?["items"] as? NSArray == [["a": "MM0034371", "n": "IBUMETIN TBL 400MG N30", "p": "NYCOMED", "t": ["100"]]])
        #expect(try Self.answer("A52")?["n"] as? String == "Hiline süüfilis")
        #expect(try Self.answer("Z99") == ["c": "Z99", "n": "", "items": [], "total": "0"] as NSDictionary, "no item, no name")
        #expect(try Self.answer("M06.9", ["limit": "1", "offset": "1"])?["items"] as? NSArray == [], "paged like the other lists")
        #expect(throws: ReadQuery.Invalid(reason: "icd is an ICD-10 code such as J45 or J45.0, not \"J4\"")) { try ReadQuery(["q": "dx", "icd": "J4"]) }
    }

    @Test func itemDetailsNameEachListedDiagnosis() throws {
        let details = try SampleSnapshot.answer(["q": "id", "aptcode": "MM0034978", "client_id": "5060"]) as? [String: [[String: Any]]]
        let diagnoses = details?["item_details"]?.first?["diagnoses"] as? [[String: String]]
        #expect(diagnoses == [["c": "M05-M06", "n": "Seropositiivne reumatoidartriit … Muu reumatoidartriit"], ["c": "M08", "n": "Juveniilne artriit"],
                              ["c": "M45", "n": "Anküloseeriv spondüliit"], ["c": "L40.5", "n": "Artropaatiline psoriaas"]])
    }
}
