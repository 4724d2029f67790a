import Foundation
import IngestTestSupport
import Testing

/// `--report FILE` holds to `docs/schemas/run-report.schema.json` on a
/// published, a dry, a gated and a failed run, checked by python-jsonschema
/// (the reference implementation, in `var/test-venv`, made by `make test`).
@Suite struct RunReportSchemaTests {
    private static let schema = "\(RepositoryFiles.root)/docs/schemas/run-report.schema.json"
    private static let validator = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
        for path in sys.argv[2:]:
            for error in sorted(validator.iter_errors(json.load(open(path))), key=str):
                print(path.rsplit("/", 1)[-1], list(error.absolute_path), error.message)
        """

    /// What the validator says of each file: nothing when all are valid.
    private func problems(_ reports: [String]) throws -> String {
        guard let result = try CommandRunner.python(["-c", Self.validator, Self.schema] + reports) else {
            Issue.record("no JSON Schema validator at \(CommandRunner.testPython): `make test-tools` (run by `make test`) installs it")
            return "no validator"
        }
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout + result.stderr
    }

    private func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    private func writeFeeds(_ temporary: TemporaryDirectory, pharmacies: Int, price: String, daysAgo: Double) -> String {
        let feeds = temporary.subdirectory("feeds")
        for file in (try? FileManager.default.contentsOfDirectory(atPath: feeds)) ?? [] { try? FileManager.default.removeItem(atPath: "\(feeds)/\(file)") }
        for pharmacy in 0..<pharmacies {
            var feed = RAXFeedBuilder(pharmacyID: "\(3000 + pharmacy)", exportedAt: RAXFeedBuilder.exportTime(daysAgo: daysAgo))
            for item in 0..<30 { feed.item("MM\(item)", price: item == 7 && pharmacy == 0 ? "x" : price) }
            temporary.write("feeds/rax_\(pharmacy).txt", bytes: feed.bytes)
        }
        return feeds
    }

    @Test func publishedDryGatedAndFailedRunsMatchTheSchema() throws {
        let temporary = TemporaryDirectory()
        let snapshots = "\(temporary.path)/s"
        func run(_ name: String, _ arguments: [String]) throws -> (status: Int32, report: String) {
            let report = "\(temporary.path)/\(name).json"
            let result = try CommandRunner.ingest(arguments + ["--snapshots", snapshots, "--report", report])
            return (result.status, report)
        }
        let published = try run("published", ["--feeds", writeFeeds(temporary, pharmacies: 4, price: "1,00", daysAgo: 2)])
        let dry = try run("dry", ["--feeds", writeFeeds(temporary, pharmacies: 4, price: "1,50", daysAgo: 1), "--dry-run"])
        let later = ISO8601DateFormatter().string(from: Date().addingTimeInterval(8 * 86_400))
        let gated = try run("gated", ["--feeds", writeFeeds(temporary, pharmacies: 2, price: "1,00", daysAgo: -7.5), "--as-of", later])
        let failed = try run("failed", ["--feeds", "\(temporary.path)/feeds", "--mappings", "\(temporary.path)/no-such-folder"])
        let unmounted = try run("unmounted", ["--feeds", "\(temporary.path)/unmounted"])
        #expect([published.status, dry.status, gated.status, failed.status, unmounted.status] == [0, 0, 3, 66, 65])
        #expect(try problems([published.report, dry.report, gated.report, failed.report, unmounted.report]) == "")

        let first = try json(published.report)
        #expect(first["schema_version"] as? Int == 1 && first["exit_status"] as? Int == 0 && first["published"] as? Bool == true)
        #expect(first["error"] is NSNull && first["blocked"] is NSNull && first["diff"] is NSNull)
        #expect(first["reject_counts"] as? [String: Int] == ["bad_price": 1])
        let feed = try #require((first["feeds"] as? [[String: Any]])?.first)
        #expect(feed["reason"] is NSNull && feed["pharmacy_id"] as? String == "3000")
        #expect(((first["rejects"] as? [[String: Any]])?.first?["field"]) as? String == "price")

        let second = try json(dry.report)
        #expect(second["dry_run"] as? Bool == true && second["published"] as? Bool == false && second["published_version"] is NSNull)
        let diff = try #require(second["diff"] as? [String: Any])
        #expect(diff["price_changes"] as? Int == 119)
        // Every change counted once in the histogram: +50 %, all of them (1.00 → 1.50).
        let buckets = try #require(diff["price_change_histogram"] as? [[String: Any]])
        #expect(buckets.compactMap { $0["count"] as? Int }.reduce(0, +) == 119 && buckets.last?["count"] as? Int == 119)
        #expect((diff["largest_price_changes"] as? [[String: Any]])?.first?["percent"] as? Double == 50.0)

        let third = try json(gated.report)
        #expect(third["exit_status"] as? Int == 3 && third["blocked"] as? String == "gates")
        let gate = try #require((third["failed_gates"] as? [[String: Any]])?.first { $0["gate"] as? String == "offers" })
        #expect(gate["current"] as? Int == 119 && gate["new"] as? Int == 59)
        #expect(gate["drop_percent"] as? Double == 50.4 && gate["limit_percent"] as? Int == 20)

        let fourth = try json(failed.report)
        #expect(fourth["exit_status"] as? Int == 66 && fourth["published"] as? Bool == false)
        #expect((fourth["error"] as? String)?.contains("no-such-folder") == true)
        #expect(fourth["feeds"] as? [Any] != nil && fourth["baseline"] is NSNull)
        #expect((fourth["duration_seconds"] as? Double).map { $0 >= 0 } == true)

        let fifth = try json(unmounted.report)
        #expect(fifth["exit_status"] as? Int == 65 && fifth["blocked"] as? String == "no_stock_feed" && fifth["published"] as? Bool == false)
        #expect(fifth["error"] is NSNull)
    }

    /// The schema can fail a report: a key missing, a number written as a string, a sentence where a code belongs.
    @Test func theSchemaRefusesWhatItMust() throws {
        let temporary = TemporaryDirectory()
        let report = "\(temporary.path)/r.json"
        let result = try CommandRunner.ingest(["--feeds", writeFeeds(temporary, pharmacies: 1, price: "1,00", daysAgo: 2),
                                               "--snapshots", "\(temporary.path)/s", "--report", report])
        #expect(result.status == 0)
        var document = try json(report)
        document["error"] = nil
        document["duration_seconds"] = "0.5"
        document["blocked"] = "no stock feed loaded any offer"
        let damaged = "\(temporary.path)/damaged.json"
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: damaged))
        let found = try problems([damaged])
        #expect(found.contains("'error' is a required property"))
        #expect(found.contains("['duration_seconds'] '0.5' is not of type 'number'"))
        #expect(found.contains("['blocked'] 'no stock feed loaded any offer' is not one of"))
    }
}
