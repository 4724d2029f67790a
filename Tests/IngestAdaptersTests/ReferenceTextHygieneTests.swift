import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

/// FEEDS.md §12's text hygiene in the built-in register and GS1 datasheet
/// adapters, as in mapped ones: a control character or line break in a
/// code or a name rejects the row `bad_text` (valid UTF-8, never
/// `bad_encoding`); a description, free text, is folded with a warning.
@Suite struct ReferenceTextHygieneTests {
    @Test func theBuiltInRegisterRejectsControlCharactersInCodesAndNames() throws {
        let directory = TemporaryDirectory()
        let text = MedicineRegisterAdapterTests.header + """
            1144976;DOXY\u{1B}[2J;;;;;;https://x.example/a.pdf;;Rx
            1012341;"IBU
            METIN";;;;;;https://x.example/b.pdf;;OTC
            1012352;PARACETAMOL;tablett;500\u{7}mg;;;;https://x.example/c.pdf;;OTC
            1144987;GOOD;tablett;;;;;https://x.example/d.pdf;;Rx

            """
        let file = try FeedFile.open(path: directory.write("medicine_register_2011-05-01.csv", text: text), name: "medicine_register_2011-05-01.csv")
        let output = MedicineRegisterAdapter().parse(file)
        #expect(output.read == output.accepted + output.rejected)
        #expect(output.records.map(\.packageCode) == ["1144987"])
        #expect(output.rejects.map { "\($0.line) \($0.key) \($0.reason.rawValue) \($0.field ?? "") \($0.message)" } == [
            "2 1144976 bad_text name name has the control character \\u{1B}",
            "3 1012341 bad_text name name has a line break",
            "5 1012352 bad_text strength strength has the control character \\u{7}",
        ])
    }

    @Test func aDatasheetRejectsAControlledBrandAndFoldsItsDescription() throws {
        let directory = TemporaryDirectory()
        let text = "<tradeItemDatasheet xmlns=\"urn:gs1:datasheet:1\">"
            + "<tradeItem><gtin>4740086000124</gtin><unitDescriptor>BASE_UNIT_OR_EACH</unitDescriptor><brandName>IBU\u{85}METIN</brandName></tradeItem>"
            + "<tradeItem><gtin>4740001000550</gtin><unitDescriptor>BASE_UNIT_OR_EACH</unitDescriptor>"
            + "<description lang=\"et\">Kaks\n   rida</description></tradeItem>"
            + "</tradeItemDatasheet>"
        let file = try FeedFile.open(path: directory.write("gs1.xml", text: text), name: "gs1.xml")
        let output = GS1DatasheetAdapter().parse(file)
        #expect(output.read == 2 && output.accepted == 1)
        #expect(output.rejects.map { "\($0.key) \($0.reason.rawValue) \($0.field ?? "") \($0.message)" }
                == ["4740086000124 bad_text brandName brandName has the control character \\u{85}"])
        #expect(output.records.first?.description == "Kaks rida")
        #expect(output.warnings.map { "\($0.key) \($0.code.rawValue) \($0.message)" }
                == ["04740001000550 folded_text description had a line break, folded to one space"])
    }
}
