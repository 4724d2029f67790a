import Foundation
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// Issue 45, item 5: generated worlds carry what Version 3 reads, so every
/// new answer can be tried at any size: GS1 datasheets with all four
/// levels, provider GLN, dimensions, weight and dated inspections; names
/// sent decomposed (NFD) in Noom feeds, kept composed in the snapshot.
@Suite struct GeneratedVersionThreeDataTests {
    @Test func aGeneratedWorldHasFourLevelDatasheetsAndDecomposedNamesThatArriveComposed() throws {
        let temporary = TemporaryDirectory()
        let report = try GeneratedNight.imported(into: temporary, pharmacies: 4, items: 60, seed: 5, formats: [.rax, .noom, .csv])
        let gs1 = try #require(report.feeds.first { $0.file == "gs1_datasheets.xml" })
        #expect(gs1.outcome == .loaded && gs1.rejected == 0, "\(gs1)")
        let query = try SnapshotQuery(try #require(report.snapshotPath))

        // Items 0, 27 and 54 in all four levels; the other ninths in a case of 12.
        #expect(query.rows("SELECT unit_descriptor, count(*) FROM gs1_items GROUP BY 1 ORDER BY 1") == [
            ["BASE_UNIT_OR_EACH", "20"], ["CASE", "7"], ["PACK_OR_INNER_PACK", "3"], ["PALLET", "3"],
        ])
        let base = try #require(query.value("SELECT gtin FROM gs1_items WHERE unit_descriptor = 'BASE_UNIT_OR_EACH' AND provider_gln IS NOT NULL ORDER BY gtin LIMIT 1"))
        let chain = query.rows("""
            WITH RECURSIVE up(gtin, level) AS (SELECT '\(base)', 0
              UNION ALL SELECT c.parent_gtin, level + 1 FROM gs1_children c JOIN up ON c.child_gtin = up.gtin)
            SELECT i.unit_descriptor, c.quantity FROM up JOIN gs1_items i USING (gtin)
            LEFT JOIN gs1_children c ON c.parent_gtin = up.gtin ORDER BY level
            """)
        #expect(chain == [["BASE_UNIT_OR_EACH", nil], ["PACK_OR_INNER_PACK", "6"], ["CASE", "10"], ["PALLET", "40"]])
        #expect(query.rows("SELECT count(*) FROM gs1_items WHERE provider_gln IS NOT NULL AND height_mm > 0 AND width_mm > 0 AND depth_mm > 0 AND gross_weight_g > 0")
                == [["3"]])
        #expect((query.int("SELECT count(*) FROM gs1_inspections WHERE inspected_on LIKE '20__-__-__'") ?? 0) > 3)
        #expect(query.int("SELECT count(DISTINCT lang) FROM gs1_descriptions") == 2)

        // Noom feeds write every other name decomposed.
        var decomposed: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: "\(temporary.path)/feeds") where name.hasPrefix("noom_") {
            // 0xCC leads the UTF-8 of the combining marks U+0300…U+033F.
            if try Data(contentsOf: URL(fileURLWithPath: "\(temporary.path)/feeds/\(name)")).contains(0xCC) { decomposed.append(name) }
        }
        #expect(!decomposed.isEmpty, "no Noom feed carries a combining mark")
        let names = query.rows("SELECT name FROM items").compactMap { $0[0] }
        #expect(names.count == 60)
        #expect(names.allSatisfy { $0 == $0.precomposedStringWithCanonicalMapping }, "a name kept decomposed")
        #expect(names.contains { $0.unicodeScalars.contains { $0.value > 0x7F } }, "no name with an Estonian letter to compose")
    }
}
