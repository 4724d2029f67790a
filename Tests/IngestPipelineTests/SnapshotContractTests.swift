import IngestGenerator
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// SNAPSHOT.md's tables as the run creates them: the core ones and every
/// built-in reference kind's.
@Suite struct SnapshotContractTests {
    @Test func everyContractTableAndColumnExists() throws {
        let temporary = TemporaryDirectory()
        let path = "\(temporary.path)/s.sqlite"
        let writer = try SnapshotWriter(path: path, schema: BuiltInFormats.schema)
        try writer.finish()
        try writer.close()
        let query = try SnapshotQuery(path)
        let required: [String: [String]] = [
            "meta": ["key", "value"],
            "pharmacies": ["id", "name", "chain_id", "region", "address", "phone", "open_hours", "latitude", "longitude", "last_refresh", "item_count", "stale"],
            "items": ["aptcode", "package_code", "gtin", "name", "producer", "atc", "active_substance", "info_url", "image_url"],
            "offers": ["pharmacy_id", "aptcode", "price_cents", "quantity", "limit_price_cents", "price_50_cents", "price_75_cents", "price_90_cents", "price_100_cents"],
            "reimbursements": ["package_code", "rate", "limit_price_cents", "diagnoses", "info"],
            "reimbursement_diagnoses": ["package_code", "rate", "icd_from", "icd_to", "marker"],
            "diagnosis_legend": ["code", "text"],
            "atc": ["code", "name", "level", "parent", "child_count", "item_count"],
            "gs1_items": ["gtin", "unit_descriptor", "brand", "description", "net_content", "image_url", "checks_passed", "checks_warning", "checks_failed", "checks_unable"],
            "gs1_children": ["parent_gtin", "child_gtin", "quantity"],
            "icd10": ["code", "name"],
            "medicine_register": ["package_code", "name", "form", "strength", "pack_size", "atc", "active_substance", "leaflet_url", "spc_url", "prescription"],
            "items_search": ["aptcode", "name", "producer", "active_substance"],
        ]
        for (table, columns) in required {
            let actual = query.rows("SELECT name FROM pragma_table_info('\(table)')").map { $0[0]! }
            #expect(Set(columns).isSubset(of: actual), "\(table) has \(actual)")
        }
        #expect(query.value("SELECT group_concat(name) FROM pragma_index_list('offers') WHERE name = 'offers_by_item'") == "offers_by_item")
    }

    /// A snapshot says what it is (application_id, user_version) and declares
    /// its relations, and a generated national-shaped one keeps them all.
    @Test func identityAndForeignKeysHold() throws {
        let temporary = TemporaryDirectory()
        let report = try GeneratedNight.imported(into: temporary, pharmacies: 6, items: 40, seed: 3, formats: [.rax, .noom, .csv, .chain])
        let query = try SnapshotQuery(try #require(report.snapshotPath))
        #expect(query.value("PRAGMA application_id") == String(SnapshotSchema.applicationID))
        #expect(query.value("PRAGMA user_version") == String(SnapshotSchema.version))
        let declared = query.rows("""
            SELECT m.name || '.' || f."from" || ' -> ' || f."table" || '.' || f."to"
            FROM sqlite_schema m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table' ORDER BY 1
            """).map { $0[0]! }
        #expect(declared == ["gs1_children.parent_gtin -> gs1_items.gtin", "gs1_descriptions.gtin -> gs1_items.gtin", "gs1_inspections.gtin -> gs1_items.gtin", "offers.aptcode -> items.aptcode", "offers.pharmacy_id -> pharmacies.id", "pharmacy_hours.pharmacy_id -> pharmacies.id",
                             "price_history.aptcode -> items.aptcode", "price_history.pharmacy_id -> pharmacies.id",
                             "reimbursement_diagnoses.package_code -> reimbursements.package_code",
                             "reimbursement_diagnoses.rate -> reimbursements.rate"])
        #expect(query.value("SELECT count(*) FROM offers") == "240")
        #expect((Int(query.value("SELECT count(*) FROM reimbursement_diagnoses") ?? "0") ?? 0) > 0)
        #expect(query.rows("PRAGMA foreign_key_check").isEmpty, "every declared relation holds")
    }
}
