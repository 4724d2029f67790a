import Foundation
import IngestTestSupport
import Testing
@testable import IngestCLI

/// `ingest check --all` lists every reject, past the hundred per reason a
/// report keeps in memory; `ingest check --mapping` exits 65 on a registry
/// or register the run would reject whole for its rejects (FEEDS.md §12.1).
@Suite struct CheckReferenceAndAllTests {
    @Test func everyRejectIsListedPastTheSampleOfAHundred() throws {
        let temporary = TemporaryDirectory()
        var feed = RAXFeedBuilder(pharmacyID: "9", exportedAt: "20240101T1200")
        for index in 0..<250 { feed.item("A\(index)", price: index == 0 ? "x" : "1,00") }
        feed.includeTrailer = false
        let path = temporary.write("rax_9.txt", bytes: feed.bytes)
        let result = try CommandRunner.ingest(["check", "--mappings", RepositoryFiles.mappingsDirectory, "--all", path])
        #expect(result.status == ExitStatus.fileRejected.rawValue)
        let listed = "\n\nrejects by reason:\n  bad_price: 1\n"
            + "    rax_9.txt:2 [A0] price: price 'x' is not a decimal-comma amount with up to 2 decimals\n"
            + "  trailer_mismatch: 249\n"
            + (1..<250).map { "    rax_9.txt:\($0 + 2) [A\($0)] feed rejected whole (trailer_mismatch): trailer (T record) missing: the file is truncated\n" }.joined()
        #expect(result.stdout.hasSuffix(listed), "\(result.stdout.suffix(600))")
        // Without --all, the report's sample (the first hundred written, by key), in runs of one message, and a count of the rest.
        let sampled = try CommandRunner.ingest(["check", "--mappings", RepositoryFiles.mappingsDirectory, path])
        #expect(sampled.stdout.hasSuffix("  trailer_mismatch: 249\n    rax_9.txt:3, 12, 13, … [A1, …] feed rejected whole (trailer_mismatch): "
                                         + "trailer (T record) missing: the file is truncated\n    … and 149 more\n"), "\(sampled.stdout.suffix(300))")
    }

    @Test func aRegisterWhoseEveryRowIsRejectedExits65() throws {
        let temporary = TemporaryDirectory()
        let mapping = temporary.write("register.mapping.toml", text: """
            kind = "register"
            [match]
            filename = "register_*.csv"
            [format]
            delimiter = ";"
            [export]
            date = "2026-11-01"
            [columns]
            package_code = "code"
            name = "name"
            prescription = "rx"
            """)
        let bad = temporary.write("register_bad.csv", text: "code;name;rx\n1144977;A;Rx\n1144976;B;maybe\n")
        let good = temporary.write("register_good.csv", text: "code;name;rx\n1144976;B;Rx\n1012352;C;\n1144977;bad;Rx\n")
        let refused = try CommandRunner.ingest(["check", "--mapping", mapping, bad])
        #expect(refused.status == ExitStatus.emptyResult.rawValue)
        #expect(refused.stdout == """
            register.mapping.toml: valid, adapter mapping:register (register)
            register_bad.csv: too_many_rejects: 2 of 2 rows rejected (100.0 %), every row rejected; not loaded, the one in force stays

            """)
        // One bad row of three passes the run's 5 % too; allowed 40 %, the file loads.
        let strict = try CommandRunner.ingest(["check", "--mapping", mapping, good])
        #expect(strict.status == ExitStatus.emptyResult.rawValue)
        #expect(strict.stdout.hasSuffix("register_good.csv: too_many_rejects: 1 of 3 rows rejected (33.3 %), over the 5 % allowed; not loaded, the one in force stays\n"))
        let allowed = try CommandRunner.ingest(["check", "--max-reject-rate", "40", "--mapping", mapping, good])
        #expect(allowed.status == 0)
        #expect(allowed.stdout.hasSuffix("register_good.csv: 3 records read, 2 accepted, 1 rejected\n"))
    }
}
