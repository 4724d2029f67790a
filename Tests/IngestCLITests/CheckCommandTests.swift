import Foundation
import IngestGenerator
import IngestTestSupport
import Testing
@testable import IngestCLI

/// `ingest check` judges each file as the import would, and says so by its exit code.
@Suite struct CheckCommandTests {
    /// The per-file table of a printed report: from the header line to `total`.
    private func table(_ stdout: String) -> [String] {
        let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("FILE") }),
              let end = lines.firstIndex(where: { $0.hasPrefix("total") }) else { return [] }
        return Array(lines[start...end])
    }

    @Test func checkGivesEveryFileTheOutcomeAndCountsOfTheImport() throws {
        let temporary = TemporaryDirectory()
        var options = FeedGenerator.Options(pharmacies: 12, items: 60, seed: 7, badRate: 0.04,
                                            rulesSource: "\(RepositoryFiles.mappingsDirectory)/patient_price_rules.toml")
        options.formats = [.rax, .noom, .csv, .chain]
        options.pharmaciesPerChainFile = 2
        _ = try FeedGenerator(options: options).generate(into: temporary.path)
        let feeds = "\(temporary.path)/feeds"
        let mappings = "\(temporary.path)/mappings"
        let files = try FileManager.default.contentsOfDirectory(atPath: feeds).sorted().map { "\(feeds)/\($0)" }
        let dryRun = try CommandRunner.ingest(["--feeds", feeds, "--mappings", mappings, "--snapshots", "\(temporary.path)/s", "--dry-run", "--verbose"])
        let check = try CommandRunner.ingest(["check", "--mappings", mappings] + files)
        #expect(table(check.stdout).count > 10)
        #expect(table(check.stdout) == table(dryRun.stdout))
        // The faulty folder has feeds rejected whole: check says so by its exit code.
        #expect(check.status == ExitStatus.fileRejected.rawValue)
        #expect(check.stdout.hasPrefix("ingest check: nothing is written\n"))
    }

    @Test func aTruncatedFeedIsRejectedWholeAndEveryRejectIsListedWithAll() throws {
        let temporary = TemporaryDirectory()
        var feed = RAXFeedBuilder(pharmacyID: "9", exportedAt: "20240101T1200")
        for index in 0..<8 { feed.item("A\(index)", price: index == 0 ? "x" : "1,00") }
        feed.includeTrailer = false
        let path = temporary.write("rax_9.txt", bytes: feed.bytes)
        let result = try CommandRunner.ingest(["check", "--mappings", RepositoryFiles.mappingsDirectory, "--all", path])
        #expect(result.status == ExitStatus.fileRejected.rawValue)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout == """
            ingest check: nothing is written
            FILE       PHARMACY  ADAPTER  OUTCOME                         READ  ACCEPTED  REJECTED
            rax_9.txt  9         rax      rejected (trailer_mismatch)        8         0         8
                         rejected: bad_price 1, trailer_mismatch 7
                         trailer_mismatch at line 9: trailer (T record) missing: the file is truncated
            total                                                            8         0         8

            rejects by reason:
              bad_price: 1
                rax_9.txt:2 [A0] price: price 'x' is not a decimal-comma amount with up to 2 decimals
              trailer_mismatch: 7
            \((1..<8).map { "    rax_9.txt:\($0 + 2) [A\($0)] feed rejected whole (trailer_mismatch): trailer (T record) missing: the file is truncated" }.joined(separator: "\n"))

            """)
        // A good file: exit 0.
        let good = try CommandRunner.ingest(["check", "--mappings", RepositoryFiles.mappingsDirectory, RepositoryFiles.feed("rax_5060_201012302305.txt")])
        #expect(good.status == 0)
        #expect(good.stdout.contains("rax_5060_201012302305.txt  5060      rax      loaded"))
    }

    @Test func anUnrecognisedFileFailsTheCheck() throws {
        let temporary = TemporaryDirectory()
        let path = temporary.write("notes.txt", text: "nothing a feed looks like\n")
        let result = try CommandRunner.ingest(["check", "--mappings", RepositoryFiles.mappingsDirectory, path])
        #expect(result.status == ExitStatus.fileRejected.rawValue)
        #expect(result.stdout.contains("notes.txt  -         -        unrecognised"))
    }

    /// FEEDS.md §12: a mapping's `[limits] max_reject_rate` is its feeds'
    /// limit unless the command line gives one; filtered records count in
    /// neither side. 100 records: 20 filtered, 7 of the other 80 faulty
    /// (8.8 %), and one more with a clear-screen code in its price: loaded
    /// under the mapping's 10 %, rejected under the run's 5 %.
    @Test func aMappingsRejectRateLimitAndFilteredRecords() throws {
        let temporary = TemporaryDirectory()
        var rows = ["code;name;price;status"]
        for index in 0..<100 {
            rows.append("C\(index);Item \(index);\(index < 7 ? "n/a" : "1.50");\(index >= 80 ? "withdrawn" : "active")")
        }
        let feed = temporary.write("list_1.csv", text: rows.joined(separator: "\n") + "\nX1;Clear;\u{1B}[2J9.99;active\n")
        func mapping(_ limits: String) -> String {
            Self.listMapping("[filter]\nskip_when = [{ column = \"status\", equals = \"withdrawn\" }]\n\(limits)")
        }
        func outcome(_ limits: String, _ extra: [String] = []) throws -> String {
            let mappings = "\(temporary.path)/m\(limits.count)"
            try FileManager.default.createDirectory(atPath: mappings, withIntermediateDirectories: true)
            _ = temporary.write("m\(limits.count)/list.mapping.toml", text: mapping(limits))
            let result = try CommandRunner.ingest(["check", "--mappings", mappings] + extra + [feed])
            return result.stdout.split(separator: "\n").filter { $0.hasPrefix("list_1.csv") || $0.drop(while: { $0 == " " }).hasPrefix("reject_rate_exceeded: 8 of") }
                .map { $0.split(separator: " ").joined(separator: " ") }.joined(separator: "\n")
        }
        #expect(try outcome("[limits]\nmax_reject_rate = 10") == "list_1.csv L1 mapping:list loaded 101 73 28")
        #expect(try outcome("") == """
            list_1.csv L1 mapping:list rejected (reject_rate_exceeded) 101 0 101
            reject_rate_exceeded: 8 of 81 records rejected (9.9 %) (20 more left out by the mapping's filter), over the 5 % allowed; the feed is not loaded
            """)
        #expect(try outcome("[limits]\nmax_reject_rate = 10", ["--max-reject-rate", "5"]).hasPrefix("list_1.csv L1 mapping:list rejected (reject_rate_exceeded)"))
        // A clear-screen code in a price reaches the terminal escaped.
        let shown = try CommandRunner.ingest(["check", "--mappings", "\(temporary.path)/m0", feed]).stdout
        #expect(!shown.contains("\u{1B}") && shown.contains("price: price '\\u{1B}[2J9.99' is not a decimal number"))
    }

    /// `ingest check --mapping FILE [FEED…]`: the mapping alone (78 with the
    /// error), then each feed's header against it (4 when it cannot be read by it).
    @Test func aMappingIsCheckedBeforeAnyRun() throws {
        let temporary = TemporaryDirectory()
        let feed = temporary.write("list_1.csv", text: "code;name;price\nC1;One;1.00\n")
        func mapping(_ name: String, encoding: String = "UTF-8", column: String = "name") -> String {
            temporary.write("\(name).mapping.toml", text: Self.listMapping(encoding: encoding, name: column))
        }
        let good = try CommandRunner.ingest(["check", "--mapping", mapping("list"), feed])
        #expect(good.status == 0 && good.stderr.isEmpty)
        #expect(good.stdout == "list.mapping.toml: valid, adapter mapping:list\nlist_1.csv: the header matches; pharmacy L1, exported 2026-06-11T00:00:00+03:00\n")
        let renamed = try CommandRunner.ingest(["check", "--mapping", mapping("renamed", column: "nimi"), feed])
        #expect(renamed.status == 4)
        #expect(renamed.stdout == "renamed.mapping.toml: valid, adapter mapping:renamed\nlist_1.csv: bad_header: the header has no column 'nimi' for name "
            + "(renamed?); its columns are 'code', 'name', 'price'; the feed is not loaded\n")
        let empty = try CommandRunner.ingest(["check", "--mapping", mapping("empty", encoding: "")])
        #expect(empty.status == 78 && empty.stdout.isEmpty)
        #expect(empty.stderr == "ingest: mapping error: empty.mapping.toml: [format.encoding]: '' is not a charset iconv knows (UTF-8, windows-1252, iso-8859-13, utf-16, …)\n")
    }

    /// A mapping of `list_*.csv` (code;name;price), for one pharmacy and one date, with `sections` before `[columns]`.
    static func listMapping(_ sections: String = "", encoding: String = "UTF-8", name: String = "name") -> String {
        """
        [match]
        filename = "list_*.csv"
        [format]
        delimiter = ";"
        encoding = "\(encoding)"
        [prices]
        currency = "EUR"
        includes_vat = true
        [pharmacy]
        id = "L1"
        [export]
        date = "2026-06-11"
        \(sections)
        [columns]
        aptcode = "code"
        name = "\(name)"
        price = "price"
        """
    }

    /// One pharmacy's rows in a chain file with different export dates: its
    /// part is rejected `mixed_export_dates`, the other pharmacies load;
    /// with `[export] date_per_row = true` the part takes its latest date.
    @Test func mixedExportDatesInAChainFile() throws {
        let temporary = TemporaryDirectory()
        let feed = temporary.write("chain_1.csv", text: """
            shop;code;name;price;date
            A;C1;One;1.00;2025-11-20
            B;C1;One;1.00;2025-11-20
            A;C2;Two;2.00;2001-01-01
            B;C2;Two;2.00;2025-11-20
            A;C3;Three;3.00;2030-01-01

            """)
        func mapping(_ perRow: String) -> String {
            temporary.write("m\(perRow.count)/chain.mapping.toml", text: Self.chainMapping("[export]\n\(perRow)"))
        }
        func table(_ perRow: String) throws -> [String] {
            let path = mapping(perRow)
            let result = try CommandRunner.ingest(["check", "--mappings", (path as NSString).deletingLastPathComponent, "--as-of", "2030-01-02", feed])
            return result.stdout.split(separator: "\n").filter { $0.hasPrefix("chain_1.csv") || $0.contains("mixed_export_dates at") }
                .map { $0.split(separator: " ").joined(separator: " ") }
        }
        #expect(try table("") == [
            "chain_1.csv A mapping:chain rejected (mixed_export_dates) 3 0 3",
            "mixed_export_dates at line 4: rows of pharmacy A carry export dates 2025-11-20T00:00:00+02:00 (line 2) and 2001-01-01T00:00:00+02:00 "
                + "(line 4): which is the export's is unknown ([export] date_per_row = true says each row has its own); the pharmacy's rows are not loaded",
            "chain_1.csv B mapping:chain loaded 2 2 0",
        ])
        #expect(try table("date_per_row = true") == ["chain_1.csv A mapping:chain loaded 3 3 0", "chain_1.csv B mapping:chain loaded 2 2 0"])
    }

    /// A chain file whose pharmacy column holds, on some rows, a price or a
    /// GTIN (columns shifted): those parts are rejected `not_a_pharmacy_id`
    /// in the run, never loaded as new pharmacies; the real one loads.
    @Test func aPharmacyIDShapedLikeAPriceOrAGTINIsNoPharmacy() throws {
        let temporary = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: "\(temporary.path)/feeds", withIntermediateDirectories: true)
        _ = temporary.write("feeds/chain_1.csv", text: """
            shop;code;name;price;date
            A;C1;One;1.00;2025-11-20
            12.50;C1;One;1.00;2025-11-20
            4740086000124;C2;Two;2.00;2025-11-20

            """)
        _ = temporary.write("m/chain.mapping.toml", text: Self.chainMapping())
        let run = try CommandRunner.ingest(["--feeds", "\(temporary.path)/feeds", "--mappings", "\(temporary.path)/m", "--snapshots",
                                            "\(temporary.path)/s", "--as-of", "2025-11-21", "--dry-run", "--verbose"])
        let lines = run.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("chain_1.csv 12.50 mapping:chain rejected (not_a_pharmacy_id) 1 0 1"), "\(run.stdout)")
        #expect(lines.contains("chain_1.csv 4740086000124 mapping:chain rejected (not_a_pharmacy_id) 1 0 1"))
        #expect(lines.contains("chain_1.csv A mapping:chain loaded 1 1 0"))
        #expect(lines.contains("not_a_pharmacy_id at line 0: pharmacy id '12.50' is not in the registry and looks like a price: a column swapped or shifted, not a new pharmacy")
                || run.stdout.contains("pharmacy id '12.50' is not in the registry and looks like a price"))

        // A night later, an id that is one of current's item codes (the code column shifted into the shop column).
        let published = try CommandRunner.ingest(["--feeds", "\(temporary.path)/feeds", "--mappings", "\(temporary.path)/m", "--snapshots",
                                                  "\(temporary.path)/s", "--as-of", "2025-11-21", "--quiet"])
        #expect(published.status == 0, "\(published.stderr)")
        _ = temporary.write("feeds/chain_1.csv", text: """
            shop;code;name;price;date
            A;C1;One;1.00;2025-11-21
            C1;A;One;1.00;2025-11-21

            """)
        let next = try CommandRunner.ingest(["--feeds", "\(temporary.path)/feeds", "--mappings", "\(temporary.path)/m", "--snapshots",
                                             "\(temporary.path)/s", "--as-of", "2025-11-22", "--dry-run", "--verbose"])
        #expect(next.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
                .contains("chain_1.csv C1 mapping:chain rejected (not_a_pharmacy_id) 1 0 1"), "\(next.stdout)")
        #expect(next.stdout.contains("pharmacy id 'C1' is not in the registry and looks like an item code (aptcode)"))
    }

    /// A chain file's mapping (shop;code;name;price;date), with `sections` before `[columns]`.
    static func chainMapping(_ sections: String = "") -> String {
        """
        [match]
        filename = "chain_*.csv"
        [format]
        delimiter = ";"
        [prices]
        currency = "EUR"
        includes_vat = true
        \(sections)
        [columns]
        pharmacy_id = "shop"
        exported_at = "date"
        aptcode = "code"
        name = "name"
        price = "price"
        """
    }
}
