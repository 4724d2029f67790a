import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// `ingest generate` and `ingest testdb` work from any folder, not only a
/// checkout, and `testdb --as-of` builds a database of another era.
@Suite struct TestDatabaseCommandTests {
    @Test func generateOutsideACheckoutUsesTheBuiltInFeePeriodsAndLeavesNothingOnFailure() throws {
        let temporary = TemporaryDirectory()
        let generated = try CommandRunner.ingest(["generate", "--out", "g", "--pharmacies", "2", "--items", "5"], in: temporary.path)
        #expect(generated.status == 0, "\(generated.stderr)")
        #expect(generated.stdout == "generated 8 files with 826 records into g/feeds; mappings in g/mappings; counts in g/ground-truth.json\n")
        #expect(!FileManager.default.fileExists(atPath: "\(temporary.path)/g/mappings/patient_price_rules.toml"))
        let imported = try CommandRunner.ingest(["--feeds", "g/feeds", "--mappings", "g/mappings", "--snapshots", "s"], in: temporary.path)
        #expect(imported.status == 0)
        #expect(imported.stdout.contains("default_price_rules"))

        let missing = try CommandRunner.ingest(["generate", "--out", "g2", "--rules-from", "nowhere"], in: temporary.path)
        #expect(missing.status == 78)
        #expect(missing.stderr == "ingest: no patient price rules at nowhere/patient_price_rules.toml to copy into the generated mappings\n")
        #expect(!FileManager.default.fileExists(atPath: "\(temporary.path)/g2"), "no empty folders left behind")
    }

    @Test func testdbOfAnotherEraOutsideACheckout() throws {
        let temporary = TemporaryDirectory()
        let result = try CommandRunner.ingest(["testdb", "--out", "old.sqlite", "--pharmacies", "4", "--items", "10", "--as-of", "2011-05-01"],
                                              in: temporary.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "wrote old.sqlite: pharmacies 4, items 10, offers 40\n")
        let database = try SQLiteDatabase(path: "\(temporary.path)/old.sqlite", readOnly: true)
        func meta(_ key: String) throws -> String? { try database.strings("SELECT value FROM meta WHERE key = '\(key)'").first }
        #expect(try meta("as_of") == "2011-05-01T00:00:00+03:00")
        #expect(try meta("reimbursement_valid_from") == "2011-01-01")
        // Every pharmacy's export is from the night before, none from the future and none stale.
        #expect(try database.strings("SELECT DISTINCT substr(last_refresh, 1, 10) FROM pharmacies WHERE stale = 0 ORDER BY 1")
                .allSatisfy { $0 <= "2011-04-30" && $0 >= "2010-12-30" })
        #expect(try database.scalarInt("SELECT count(*) FROM pharmacies WHERE stale = 1") == 0)
        try database.close()
    }

    /// SNAPSHOT.md: the same arguments and `--as-of` give byte-identical
    /// files (the version and `created_at` come from `--as-of`, not the clock).
    @Test func testdbTwiceWithTheSameArgumentsIsTheSameFile() throws {
        let temporary = TemporaryDirectory()
        let arguments = ["--pharmacies", "6", "--items", "60", "--seed", "3", "--as-of", "2026-11-20"]
        for name in ["a", "b"] {
            let result = try CommandRunner.ingest(["testdb", "--out", "\(name).sqlite"] + arguments, in: temporary.path)
            #expect(result.status == 0, "\(result.stderr)")
            Thread.sleep(forTimeInterval: 1.1) // a clock that leaked into the file would show across a second
        }
        let a = try Data(contentsOf: URL(fileURLWithPath: "\(temporary.path)/a.sqlite"))
        let b = try Data(contentsOf: URL(fileURLWithPath: "\(temporary.path)/b.sqlite"))
        #expect(a.count > 0)
        #expect(a == b)
        let query = try SnapshotQuery("\(temporary.path)/a.sqlite")
        #expect(query.value("SELECT value FROM meta WHERE key = 'created_at'") == "2026-11-19T22:00:00Z")
    }

    /// Issue 45, item 5: a test database with stale pharmacies, as a night
    /// where some feeds did not come leaves them (READ_API.md's `s`, `maxAge`).
    @Test func testdbWithStalePharmaciesIsTheSecondNightWithThemCarriedOver() throws {
        let temporary = TemporaryDirectory()
        let result = try CommandRunner.ingest(["testdb", "--out", "t.sqlite", "--pharmacies", "8", "--items", "30", "--seed", "2",
                                               "--formats", "noom,csv", "--as-of", "2026-11-20", "--stale-pharmacies", "3"], in: temporary.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "wrote t.sqlite: pharmacies 8, items 30, offers 240\n")
        let query = try SnapshotQuery("\(temporary.path)/t.sqlite")
        #expect(query.rows("SELECT id, stale, substr(last_refresh, 1, 10) FROM pharmacies ORDER BY id") == [
            ["10000", "0", "2026-11-20"], ["10001", "0", "2026-11-20"], ["10002", "0", "2026-11-20"], ["10003", "0", "2026-11-20"],
            ["10004", "0", "2026-11-20"], ["10005", "1", "2026-11-19"], ["10006", "1", "2026-11-19"], ["10007", "1", "2026-11-19"],
        ])
        #expect(query.value("SELECT value FROM meta WHERE key = 'run_date'") == "2026-11-21")
        let refused = try CommandRunner.ingest(["testdb", "--out", "u.sqlite", "--pharmacies", "4", "--stale-pharmacies", "4"], in: temporary.path)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--stale-pharmacies must be 0 or more and fewer than --pharmacies"), "\(refused.stderr)")
    }
}
