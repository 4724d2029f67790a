import Foundation
import IngestPipeline
import IngestReadAPI
import IngestSnapshot
import IngestTestSupport
import Testing

/// FEEDS.md §10 in the snapshot (schema 5's gs1 tables) and READ_API.md
/// Version 3's `q=g`, from the spec's example datasheet and a datasheet
/// with all four levels (without its wrong case: one bad row of six would
/// reject the reference file, as FEEDS.md's 5 % limit says), beside the sample feeds; and a stock feed that
/// names an inner pack's GTIN, found by search and given the base unit's brand.
@Suite(.serialized) struct GS1DatasheetAnswerTests {
    static func world() throws -> (OpenSnapshot, SnapshotQuery, RunReport, TemporaryDirectory) {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        for file in try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.feedsDirectory) {
            try FileManager.default.copyItem(atPath: "\(RepositoryFiles.feedsDirectory)/\(file)", toPath: "\(feeds)/\(file)")
        }
        _ = temporary.write("feeds/gs1_datasheet_levels.xml", text: FourLevelDatasheet.xml)
        var feed = RAXFeedBuilder(pharmacyID: "31461", pharmacyName: "ANNA APTEEK", exportedAt: "20110519T2305")
        feed.item("MM0900001", gtin: FourLevelDatasheet.pack, name: "PARAMAX TBL 500MG N20 X10", producer: "", price: "19,90", quantity: "2")
        _ = temporary.write("feeds/rax_31461_201105192305.txt", bytes: feed.bytes)
        let snapshots = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        let options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots.path, mappingsDirectory: RepositoryFiles.mappingsDirectory,
                                    parseThreads: 2, asOf: Date(timeIntervalSince1970: 1_716_368_400))
        let report = try ImportRun(options: options).run()
        let version = try #require(report.publishedVersion)
        let path = snapshots.snapshotPath(version)
        return (try OpenSnapshot(path: path, version: version), try SnapshotQuery(path), report, temporary)
    }

    @Test func attributesAreKeptRowByRow() throws {
        let (_, database, report, temporary) = try Self.world()
        defer { _ = temporary }
        #expect(database.rows("""
            SELECT gtin, unit_descriptor, brand, description, net_content, net_content_unit, image_url, provider_gln,
                   height_mm, width_mm, depth_mm, gross_weight_g, checks_passed, checks_warning, checks_failed, checks_unable
            FROM gs1_items WHERE gtin IN ('04740086000124', '\(FourLevelDatasheet.base)', '\(FourLevelDatasheet.pack)') ORDER BY gtin
            """) == [
            ["04740086000124", "BASE_UNIT_OR_EACH", "IBUMETIN", "IBUMETIN TBL 400MG N10", "10", "H87", "http://images.example/4740086000124.jpg",
             "4740000000001", "20.0", "60.0", "95.0", nil, "2", "1", "1", "1"],
            [FourLevelDatasheet.base, "BASE_UNIT_OR_EACH", "PARAMAX", "PARAMAX TBL 500MG N20", "20", "H87", nil, "4740000000100",
             "20.0", "60.0", "95.0", "15.0", "1", "1", "1", "0"],
            [FourLevelDatasheet.pack, "PACK_OR_INNER_PACK", nil, "PARAMAX TBL 500MG N20, 10 KARPI", nil, nil, nil, nil,
             nil, nil, nil, nil, "0", "0", "1", "1"],
        ])
        #expect(database.rows("SELECT gtin, lang, text FROM gs1_descriptions WHERE gtin = '04740086000124' ORDER BY lang") == [
            ["04740086000124", "en", "IBUMETIN TAB 400MG 10PCS"], ["04740086000124", "et", "IBUMETIN TBL 400MG N10"],
        ])
        #expect(database.rows("SELECT attribute, result, inspected_on FROM gs1_inspections WHERE gtin = '04740086000124' ORDER BY attribute") == [
            ["description", "1", nil], ["grossWeight", "3", nil], ["height", "2", nil], ["imageUrl", "0", nil], ["netContent", "1", nil],
        ])
        #expect(database.rows("SELECT parent_gtin, child_gtin, quantity FROM gs1_children WHERE parent_gtin LIKE '_474008600100_' ORDER BY 1") == [
            [FourLevelDatasheet.pack, FourLevelDatasheet.base, "10"], [FourLevelDatasheet.caseGTIN, FourLevelDatasheet.pack, "12"],
            [FourLevelDatasheet.pallet, FourLevelDatasheet.caseGTIN, "40"],
        ])
        #expect(report.warningCounts[.badMeasure] == 2, "the base unit measured in inches")
        // The stock feed named the inner pack: the base unit below it gives the producer; its failed image gives none.
        #expect(database.rows("SELECT producer, image_url FROM items WHERE aptcode = 'MM0900001'") == [["PARAMAX", nil]])
    }

    @Test func qGAnswersADatasheetAtAnyLevelAndSearchFindsTheItemByAnyLevel() throws {
        let (snapshot, _, _, temporary) = try Self.world()
        defer { _ = temporary }
        func answer(_ gtin: String) throws -> String {
            String(decoding: try ReadAPI.answer(try ReadQuery(["q": "g", "gtin": gtin]), from: snapshot), as: UTF8.self)
        }
        #expect(try answer("4740086000124") == #"{"gs1":[{"gtin":"04740086000124","level":"BASE_UNIT_OR_EACH","brand":"IBUMETIN","description":"IBUMETIN TBL 400MG N10","netContent":"10","netContentUnit":"H87","heightMm":"20","widthMm":"60","depthMm":"95","grossWeightG":"","imageUrl":"http://images.example/4740086000124.jpg","gln":"4740000000001","descriptions":[{"lang":"en","text":"IBUMETIN TAB 400MG 10PCS"},{"lang":"et","text":"IBUMETIN TBL 400MG N10"}],"children":[],"inspections":[{"attribute":"description","result":"1","date":""},{"attribute":"grossWeight","result":"3","date":""},{"attribute":"height","result":"2","date":""},{"attribute":"imageUrl","result":"0","date":""},{"attribute":"netContent","result":"1","date":""}]}]}"#)
        #expect(try answer("(01)\(FourLevelDatasheet.pallet)") == #"{"gs1":[{"gtin":"34740086001009","level":"PALLET","brand":"","description":"","netContent":"","netContentUnit":"","heightMm":"","widthMm":"","depthMm":"","grossWeightG":"","imageUrl":"","gln":"","descriptions":[],"children":[{"gtin":"24740086001002","quantity":"40"}],"inspections":[]}]}"#)
        #expect(try answer("4740086000131") == #"{"gs1":[]}"#, "a GTIN without a datasheet")
        #expect(throws: ReadQuery.Invalid.self) { try ReadQuery(["q": "g", "gtin": "4740086000125"]) }
        // The pallet and the case find the item the stock feed sells by its inner pack's GTIN.
        for code in [FourLevelDatasheet.pallet, FourLevelDatasheet.caseGTIN, FourLevelDatasheet.pack] {
            let found = try JSONSerialization.jsonObject(with: ReadAPI.answer(try ReadQuery(["q": "i", "search": code]), from: snapshot)) as? [String: Any]
            #expect((found?["items"] as? [[String: String]])?.map { $0["a"] ?? "" } == ["MM0900001"], "\(code)")
        }
    }
}
