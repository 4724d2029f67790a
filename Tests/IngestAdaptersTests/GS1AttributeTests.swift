import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

/// FEEDS.md §10 as schema 5 keeps it: the four levels in order (a child of
/// a higher level rejects its parent), each inspected attribute a row with
/// its date, a failed attribute supplying nothing, dimensions and weight
/// converted from UN/ECE codes, descriptions per language, the GLN.
@Suite struct GS1AttributeTests {
    let adapter = GS1DatasheetAdapter()

    func parsed() throws -> FeedOutput<GS1TradeItem> {
        let directory = TemporaryDirectory()
        let path = directory.write("gs1_levels.xml", text: FourLevelDatasheet.withWrongCase)
        let output = adapter.parse(try FeedFile.open(path: path, name: "gs1_levels.xml"))
        #expect(output.read == output.accepted + output.rejected)
        return output
    }

    @Test func levelsGoDownAndACaseHoldingAPalletIsRejected() throws {
        let output = try parsed()
        #expect(output.records.map(\.gtin) == [FourLevelDatasheet.base, FourLevelDatasheet.pack, FourLevelDatasheet.caseGTIN,
                                               FourLevelDatasheet.pallet, FourLevelDatasheet.inches])
        #expect(output.rejects.map { [$0.key, $0.reason.rawValue, $0.field ?? "", $0.message] } == [[
            FourLevelDatasheet.wrongCase, "bad_hierarchy", "child",
            "a CASE cannot hold a PALLET (child \(FourLevelDatasheet.pallet)): levels go down",
        ]])
    }

    @Test func attributesAreKeptConvertedAndAFailedOneSuppliesNothing() throws {
        let output = try parsed()
        let base = try #require(output.records.first { $0.gtin == FourLevelDatasheet.base })
        #expect(base.heightMM == 20 && base.widthMM == 60 && base.depthMM == 95 && base.grossWeightG == 15)
        #expect(base.providerGLN == "4740000000100" && base.netContent == "20" && base.netContentUnit == "H87")
        #expect(base.descriptions.map { [$0.lang, $0.text] } == [["et", "PARAMAX TBL 500MG N20"], ["en", "PARAMAX TAB 500MG 20PCS"],
                                                               ["ru", "ПАРАМАКС ТАБ 500МГ N20"]])
        #expect(base.imageURL == nil, "its imageUrl failed inspection")
        #expect(base.brand == "PARAMAX" && base.description == "PARAMAX TBL 500MG N20")
        #expect(base.inspections == [.init(attribute: "brandName", result: 1, inspectedOn: "2015-03-02"),
                                     .init(attribute: "description", result: 2, inspectedOn: "2015-03-02"),
                                     .init(attribute: "imageUrl", result: 3, inspectedOn: "2015-03-02")])
        #expect(base.checksPassed == 1 && base.checksWarning == 1 && base.checksFailed == 1 && base.checksUnable == 0)
        let pack = try #require(output.records.first { $0.gtin == FourLevelDatasheet.pack })
        #expect(pack.brand == nil, "its brandName failed")
        #expect(pack.inspections.map(\.inspectedOn) == [nil, nil])
        let inches = try #require(output.records.first { $0.gtin == FourLevelDatasheet.inches })
        #expect(inches.heightMM == nil && inches.widthMM == nil)
        #expect(output.warnings.map { [$0.key, $0.code.rawValue, $0.message] } == [
            [FourLevelDatasheet.inches, "bad_measure", "height unit 'INH' is not one of CMT, MMT, MTR; left out"],
            [FourLevelDatasheet.inches, "bad_measure", "width 'wide' is not a number; left out"],
        ])
    }
}
