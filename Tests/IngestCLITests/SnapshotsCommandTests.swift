import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestCLI

@Suite struct SnapshotsCommandTests {
    /// Feeds exported `daysAgo` days ago: a later night's feeds must be newer, or they are `not_newer`.
    private func feeds(_ temporary: TemporaryDirectory, pharmacies: Int, price: String, daysAgo: Double = 2) -> String {
        let feeds = temporary.subdirectory("feeds")
        for file in (try? FileManager.default.contentsOfDirectory(atPath: feeds)) ?? [] { try? FileManager.default.removeItem(atPath: "\(feeds)/\(file)") }
        for pharmacy in 0..<pharmacies {
            var feed = RAXFeedBuilder(pharmacyID: "\(2000 + pharmacy)", exportedAt: RAXFeedBuilder.exportTime(daysAgo: daysAgo))
            feed.item("MM1", price: price)
            temporary.write("feeds/rax_\(pharmacy).txt", bytes: feed.bytes)
        }
        return feeds
    }

    /// Two published versions, prices 1.00 then 2.00.
    private func twoVersions(_ temporary: TemporaryDirectory) throws -> (String, SnapshotDirectory) {
        let snapshots = "\(temporary.path)/s"
        #expect(try CommandRunner.ingest(["--feeds", feeds(temporary, pharmacies: 2, price: "1,00"), "--snapshots", snapshots]).status == 0)
        #expect(try CommandRunner.ingest(["--feeds", feeds(temporary, pharmacies: 2, price: "2,00", daysAgo: 1), "--snapshots", snapshots]).status == 0)
        return (snapshots, SnapshotDirectory(path: snapshots))
    }

    @Test func rollbackSwitchesCurrentBackAndVerifyPasses() throws {
        let temporary = TemporaryDirectory()
        let (snapshots, directory) = try twoVersions(temporary)
        let versions = try directory.versions()
        #expect(versions.count == 2)

        let list = try CommandRunner.ingest(["snapshots", "list", "--snapshots", snapshots])
        #expect(list.status == 0)
        #expect(list.stdout.contains("* \(versions[1])"))
        #expect(list.stdout.contains("  \(versions[0])"))

        let rollback = try CommandRunner.ingest(["snapshots", "rollback", versions[0], "--snapshots", snapshots])
        #expect(rollback.status == 0)
        #expect(directory.currentVersion() == versions[0])
        #expect(try SnapshotQuery(directory.currentPath).int("SELECT price_cents FROM offers LIMIT 1") == 100)

        let verify = try CommandRunner.ingest(["snapshots", "verify", "--snapshots", snapshots])
        #expect(verify.status == 0)
        #expect(verify.stdout.contains("\(versions[0]): ok"))

        let diff = try CommandRunner.ingest(["snapshots", "diff", versions[0], versions[1], "--snapshots", snapshots])
        #expect(diff.stdout.contains("    2000/MM1: 1.00 → 2.00 (+1.00, +100.0 %)  ITEM at AASA APTEEK\n"))
        #expect(diff.stdout.contains("    by size: +50 % to …: 2\n"))

        #expect(try CommandRunner.ingest(["snapshots", "rollback", "nope", "--snapshots", snapshots]).status == 66)
    }

    @Test func verifyFindsATamperedSnapshot() throws {
        let temporary = TemporaryDirectory()
        let snapshots = "\(temporary.path)/s"
        #expect(try CommandRunner.ingest(["--feeds", feeds(temporary, pharmacies: 1, price: "1,00"), "--snapshots", snapshots]).status == 0)
        let directory = SnapshotDirectory(path: snapshots)
        let path = directory.snapshotPath(directory.currentVersion()!)
        chmod(path, 0o644)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seek(toFileOffset: 100)
        handle.write(Data([1, 2, 3]))
        handle.closeFile()
        let verify = try CommandRunner.ingest(["snapshots", "verify", "--snapshots", snapshots])
        #expect(verify.status == 70)
        #expect(verify.stdout.contains("SHA-256"))
    }

    @Test func pruneKeepsNewestAndCurrent() throws {
        let temporary = TemporaryDirectory()
        let snapshots = "\(temporary.path)/s"
        // Three nights, each export newer (the same export again would publish nothing new).
        for (price, daysAgo) in [("1,00", 3.0), ("2,00", 2.0), ("3,00", 1.0)] {
            #expect(try CommandRunner.ingest(["--feeds", feeds(temporary, pharmacies: 1, price: price, daysAgo: daysAgo), "--snapshots", snapshots]).status == 0)
        }
        let directory = SnapshotDirectory(path: snapshots)
        let versions = try directory.versions()
        try #require(versions.count == 3)
        // Issue 35, item 5: a dry run says what would go and removes nothing.
        let dry = try CommandRunner.ingest(["snapshots", "prune", "--keep", "1", "--dry-run", "--snapshots", snapshots])
        #expect(dry.status == 0 && dry.stdout == "would remove: \(versions[0]), \(versions[1])\n")
        #expect(try directory.versions() == versions)
        // `current` and `previous` name the last two versions.
        let named = try CommandRunner.ingest(["snapshots", "diff", "previous", "current", "--snapshots", snapshots])
        let explicit = try CommandRunner.ingest(["snapshots", "diff", versions[1], versions[2], "--snapshots", snapshots])
        #expect(named.status == 0 && named.stdout == explicit.stdout && named.stdout.hasPrefix("\(versions[1]) → \(versions[2])\n"))
        let prune = try CommandRunner.ingest(["snapshots", "prune", "--keep", "1", "--snapshots", snapshots])
        #expect(prune.status == 0 && prune.stdout == "removed: \(versions[0]), \(versions[1])\n")
        #expect(try directory.versions() == [versions[2]])
        let alone = try CommandRunner.ingest(["snapshots", "diff", "previous", "current", "--snapshots", snapshots])
        #expect(alone.status == 66 && alone.stderr == "ingest: no version in \(snapshots) was published before current (\(versions[2]))\n")
    }

    @Test func aFailedGateExitsWithItsCodeAndForcePublishes() throws {
        let temporary = TemporaryDirectory()
        let snapshots = "\(temporary.path)/s"
        let metrics = "\(temporary.path)/ingest.prom"
        let reportFile = "\(temporary.path)/report.json"
        #expect(try CommandRunner.ingest(["--feeds", feeds(temporary, pharmacies: 10, price: "1,00"), "--snapshots", snapshots]).status == 0)
        let current = SnapshotDirectory(path: snapshots).currentVersion()
        // Eight nights later half the pharmacies send: the others' offers are too old to carry.
        let half = feeds(temporary, pharmacies: 5, price: "1,00", daysAgo: -7.5)
        let later = ISO8601DateFormatter().string(from: Date().addingTimeInterval(8 * 86_400))
        let blocked = try CommandRunner.ingest(["--feeds", half, "--snapshots", snapshots, "--metrics-file", metrics, "--report", reportFile, "--as-of", later])
        #expect(blocked.status == 3)
        #expect(blocked.stdout.contains("NOT PUBLISHED: gate offers: 10 → 5, a fall of 50.0 %"))
        #expect(SnapshotDirectory(path: snapshots).currentVersion() == current)
        let metricsText = try PrometheusTextfile(contentsOfFile: metrics)
        #expect(metricsText["ingest_quality_gate_failed{gate=\"offers\"}"] == 1)
        // Every gate has its series, 0 where it passed: the label set never changes from night to night.
        for gate in ["empty_result", "pharmacies_rise", "unregistered_pharmacies"] {
            #expect(metricsText["ingest_quality_gate_failed{gate=\"\(gate)\"}"] == 0, "\(gate)")
        }
        #expect(metricsText["ingest_last_run_exit_code"] == 3)
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportFile))) as? [String: Any]
        #expect((report?["failed_gates"] as? [[String: Any]])?.count == 2)
        #expect(report?["published"] as? Bool == false)

        let forced = try CommandRunner.ingest(["--feeds", half, "--snapshots", snapshots, "--force", "--as-of", later])
        #expect(forced.status == 0)
        #expect(forced.stdout.contains("FORCED past gate offers"))
        #expect(SnapshotDirectory(path: snapshots).currentVersion() != current)
    }

    /// Every stderr line under `--log-format json` is a JSON object, progress
    /// and failures included: numbers are numbers, times have milliseconds,
    /// and rejects, the publish and the run's end are events.
    @Test func jsonLogsAreJSONLinesProgressAndFailuresIncluded() throws {
        let temporary = TemporaryDirectory()
        var feed = RAXFeedBuilder(pharmacyID: "2000", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 2))
        for item in 0..<29 { feed.item("MM\(item)", price: "1,00") }
        feed.item("MMX", price: "1,2,3")
        temporary.write("feeds/rax_0.txt", bytes: feed.bytes)
        func events(_ stderr: String) throws -> [[String: Any]] {
            try stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                let time = object?["time"] as? String ?? ""
                #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(line)")
                return try #require(object, "not a JSON object: \(line)")
            }
        }
        let run = try CommandRunner.ingest(["--feeds", "\(temporary.path)/feeds", "--snapshots", "\(temporary.path)/s", "--log-format", "json"])
        #expect(run.status == 0)
        #expect(run.stderr.hasSuffix("\n"))
        let logged = try events(run.stderr)
        func named(_ event: String) -> [[String: Any]] { logged.filter { $0["event"] as? String == event } }
        // A progress event as each phase begins, and the stock feeds' by quarters, the last at 100 %.
        #expect(named("progress").compactMap { $0["phase"] as? String }.filter { $0 != "parsing stock feeds" }
            == ["reading reference data", "building indexes", "checking and publishing"])
        let parsing = named("progress").filter { $0["phase"] as? String == "parsing stock feeds" }
        #expect(parsing.last?["percent"] as? Int == 100 && parsing.last?["offers"] as? Int == 29)
        #expect(parsing.last?["total_bytes"] as? Int == feed.bytes.count)
        #expect(named("phase_done").compactMap { $0["phase"] as? String }
            == ["reference data", "stock feeds parsed and written", "indexes built", "price history written", "search index checked", "checked and published"])
        #expect(named("phase_done").allSatisfy { $0["seconds"] is Double })
        #expect(named("rejects").count == 1 && named("rejects").first?["reason"] as? String == "bad_price")
        #expect(named("rejects").first?["count"] as? Int == 1)
        #expect(named("published").count == 1)
        let finished = try #require(named("run_finished").first)
        #expect(finished["exit_status"] as? Int == 0 && finished["published"] as? Bool == true && finished["offers"] as? Int == 29)
        #expect(finished["version"] as? String == named("published").first?["version"] as? String)
        #expect(logged.last?["event"] as? String == "run_finished")

        let failed = try CommandRunner.ingest(["--feeds", "\(temporary.path)/feeds", "--mappings", "\(temporary.path)/none",
                                               "--snapshots", "\(temporary.path)/s", "--log-format", "json"])
        #expect(failed.status == 66)
        let failure = try events(failed.stderr)
        #expect(failure.map { $0["event"] as? String } == ["run_failed", "run_finished"] && failure.first?["level"] as? String == "error")
        #expect(failure.first?["exit_status"] as? Int == 66)
        #expect((failure.first?["error"] as? String)?.contains("none") == true)
        #expect(failure.last?["verdict"] as? String == "FAILED (exit 66): a named input is missing (mappings folder, file, version)")
        #expect(failure.last?["exit_status"] as? Int == 66 && failure.last?["published"] as? Bool == false)

        // A clean --quiet night logs below errors nothing, but its run_finished all the same (issue 44).
        let quiet = try CommandRunner.ingest(["--feeds", "\(temporary.path)/feeds", "--snapshots", "\(temporary.path)/s", "--log-format", "json", "--quiet"])
        #expect(quiet.status == 0 && quiet.stdout == "")
        let quietEvents = try events(quiet.stderr)
        #expect(quietEvents.map { $0["event"] as? String } == ["run_finished"])
        #expect(quietEvents.first?["level"] as? String == "info" && quietEvents.first?["exit_status"] as? Int == 0)
        #expect((quietEvents.first?["verdict"] as? String)?.hasPrefix("NOTHING NEW TO PUBLISH (current ") == true)
        #expect(quietEvents.first?["duration_seconds"] is Double && quietEvents.first?["offers"] as? Int == 29)

        // An unmounted feeds folder on a night after a publish: one run_finished line that says why, exit 65.
        let unmounted = try CommandRunner.ingest(["--feeds", "\(temporary.path)/none", "--snapshots", "\(temporary.path)/s", "--log-format", "json", "--quiet"])
        #expect(unmounted.status == 65)
        let lines = unmounted.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines.first?.hasPrefix("NOT PUBLISHED (no stock feed): 1 pharmacy (1 fresh, 0 stale), 29 offers, 0 rejects, 1 warning in ") == true)
        #expect(lines.dropFirst().first == "  NOT PUBLISHED: no stock feed loaded: feeds folder \(temporary.path)/none does not exist or is not a directory (is it mounted?)")
        let blocked = try events(unmounted.stderr)
        #expect(blocked.map { $0["event"] as? String } == ["run_finished"])
        #expect(blocked.first?["blocked"] as? String == "no_stock_feed" && blocked.first?["exit_status"] as? Int == 65)
        #expect(blocked.first?["why"] as? String == "no stock feed loaded: feeds folder \(temporary.path)/none does not exist or is not a directory (is it mounted?)")
    }

    @Test func rollbackRefusesATamperedFileWith70AndChangesNothing() throws {
        let temporary = TemporaryDirectory()
        let (snapshots, directory) = try twoVersions(temporary)
        let (old, current) = (try directory.versions()[0], directory.currentVersion())
        // One byte changed in the old file: still a database, but not the one its manifest describes.
        let handle = try #require(FileHandle(forUpdatingAtPath: directory.snapshotPath(old)))
        try handle.seek(toOffset: 4096 + 100)
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: 4096 + 100)
        try handle.write(contentsOf: Data([byte ^ 0xFF]))
        try handle.close()
        let rollback = try CommandRunner.ingest(["snapshots", "rollback", old, "--snapshots", snapshots])
        #expect(rollback.status == 70)
        #expect(rollback.stderr.contains("\(old) does not match its manifest: SHA-256"))
        #expect(rollback.stderr.hasSuffix("; current is unchanged\n"))
        #expect(rollback.stdout.isEmpty)
        #expect(directory.currentVersion() == current)
    }

    /// Every subcommand's --help lists its own codes with what they mean there, and docs/USAGE.md does too.
    @Test func eachSubcommandDocumentsItsExitCodes() throws {
        let readme = try String(contentsOfFile: "\(RepositoryFiles.root)/docs/USAGE.md", encoding: .utf8)
        for (name, codes) in SnapshotsCommand.exitCodes {
            let help = try CommandRunner.ingest(["snapshots", name, "--help"])
            #expect(help.status == 0)
            let row = readme.split(separator: "\n").first { $0.hasPrefix("| `snapshots \(name)` |") }
            #expect(row != nil, "docs/USAGE.md has no exit code row for snapshots \(name)")
            for (status, meaning) in codes {
                #expect(help.stdout.contains("\(status.rawValue)"), "snapshots \(name) --help lacks \(status.rawValue)")
                // --help wraps long lines: compare with whitespace runs as one space.
                let words = { (text: String) in text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
                #expect(words(help.stdout).contains("\(status.rawValue) \(words(meaning))"), "snapshots \(name) --help lacks: \(meaning)")
                // 1 and 64 are said once above the table, for every subcommand.
                let everywhere = ExitStatus.always.contains { $0.0 == status }
                #expect(everywhere || row?.contains(" \(status.rawValue) ") == true, "docs/USAGE.md's row of snapshots \(name) lacks \(status.rawValue)")
            }
        }
    }

    /// The codes each subcommand gives without a published snapshot, or for a version that is not there.
    @Test func missingFoldersAndVersionsExit66() throws {
        let temporary = TemporaryDirectory()
        let nowhere = "\(temporary.path)/none"
        for arguments in [["list"], ["prune", "--keep", "1"], ["verify"], ["rollback", "v1"], ["diff", "v1", "v2"]] {
            let result = try CommandRunner.ingest(["snapshots"] + arguments + ["--snapshots", nowhere])
            #expect(result.status == 66, "snapshots \(arguments[0]): \(result.stderr)")
            #expect(result.stderr.hasPrefix("ingest: "), "snapshots \(arguments[0]) says why")
        }
        let (snapshots, directory) = try twoVersions(temporary)
        for arguments in [["verify", "v1"], ["rollback", "v1"], ["diff", "v1", try directory.versions()[0]]] {
            let result = try CommandRunner.ingest(["snapshots"] + arguments + ["--snapshots", snapshots])
            #expect(result.status == 66)
            #expect(result.stderr.hasPrefix("ingest: no snapshot v1 in \(snapshots); there are: \(try directory.versions().joined(separator: ", "))"))
        }
    }

    /// A run stopped (SIGSTOP) while it holds the lock keeps it: the others
    /// exit 75 naming it and its state. Killed, it holds nothing.
    @Test func aStoppedRunKeepsTheLockUntilItIsKilled() throws {
        let temporary = TemporaryDirectory()
        let (snapshots, directory) = try twoVersions(temporary)
        let feeds = temporary.subdirectory("big")
        var feed = RAXFeedBuilder(pharmacyID: "2000", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 0.5))
        for item in 0..<200_000 { feed.item(String(format: "MM%07d", item), price: "1,00") }
        temporary.write("big/rax.txt", bytes: feed.bytes)
        let run = try CommandRunner.startIngest(["--feeds", feeds, "--snapshots", snapshots])
        let lockFile = "\(snapshots)/.lock"
        while run.isRunning, (try? String(contentsOfFile: lockFile, encoding: .utf8)) != "\(run.processIdentifier)\n" {
            Thread.sleep(forTimeInterval: 0.002)
        }
        try #require(run.isRunning, "the run ended before it could be stopped")
        kill(run.processIdentifier, SIGSTOP)
        defer {
            kill(run.processIdentifier, SIGKILL)
            run.waitUntilExit()
        }
        for arguments in [["snapshots", "prune", "--keep", "1"], ["snapshots", "rollback", try directory.versions()[0]], ["--feeds", feeds]] {
            let held = try CommandRunner.ingest(arguments + ["--snapshots", snapshots])
            #expect(held.status == 75, "\(arguments)")
            #expect(held.stderr.contains("another ingest run holds \(lockFile) (PID \(run.processIdentifier), stopped); a stopped process keeps the lock until it is continued (kill -CONT) or killed"),
                    "\(held.stderr)")
        }
        kill(run.processIdentifier, SIGKILL)
        run.waitUntilExit()
        #expect(try CommandRunner.ingest(["snapshots", "prune", "--keep", "1", "--snapshots", snapshots]).status == 0)
    }

    /// `snapshots list` shows each version's size and its stale pharmacies:
    /// night 2 lacks one pharmacy's feed, so one is served carried over.
    @Test func listShowsSizeAndStalePharmacies() throws {
        let temporary = TemporaryDirectory()
        let snapshots = "\(temporary.path)/s"
        for (night, extra) in [("n1", [String]()), ("n2", ["--days-later", "1"])] {
            let generated = try CommandRunner.ingest(["generate", "--out", "\(temporary.path)/\(night)", "--pharmacies", "3", "--items", "5",
                                                      "--formats", "rax"] + extra)
            #expect(generated.status == 0, "\(generated.stderr)")
        }
        let feeds = "\(temporary.path)/n2/feeds"
        let dropped = try #require(try FileManager.default.contentsOfDirectory(atPath: feeds).sorted().first { $0.hasPrefix("rax_") })
        try FileManager.default.removeItem(atPath: "\(feeds)/\(dropped)")
        for (night, day) in [("n1", "2025-11-21"), ("n2", "2025-11-22")] {
            let run = try CommandRunner.ingest(["--feeds", "\(temporary.path)/\(night)/feeds", "--mappings", "\(temporary.path)/\(night)/mappings",
                                                "--snapshots", snapshots, "--as-of", day, "--quiet"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let directory = SnapshotDirectory(path: snapshots)
        let versions = try directory.versions()
        let lines = try versions.map { version -> String in
            let manifest = try directory.readManifest(version)
            let size = String(format: "%.1f MB", Double(manifest.snapshot.size) / 1_000_000)
            let stale = version == versions.last ? 1 : 0
            let rejects = manifest.rejectCounts.values.reduce(0, +)
            return "\(version == versions.last ? "*" : "") \(version) \(manifest.createdAt) \(size) 3 \(stale) 5 15 \(rejects)"
        }
        let list = try CommandRunner.ingest(["snapshots", "list", "--snapshots", snapshots])
        #expect(list.status == 0)
        let shown = list.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(shown == ["VERSION CREATED SIZE PHARMACIES STALE ITEMS OFFERS REJECTS"] + lines.map { $0.hasPrefix(" ") ? String($0.dropFirst()) : $0 })

        // A dry run of night 1's feeds against night 2: what would change comes right after the verdict, before the feeds.
        let dry = try CommandRunner.ingest(["--feeds", "\(temporary.path)/n1/feeds", "--mappings", "\(temporary.path)/n1/mappings",
                                            "--snapshots", snapshots, "--as-of", "2025-11-22", "--dry-run", "--verbose"])
        let report = dry.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(report.count > 4 && report[0] == "ingest dry run: nothing is published" && report[1].hasPrefix("DRY RUN"))
        #expect(report[2] == "" && report[3] == "changes against \(versions[1]):", "\(dry.stdout)")
        let table = try #require(report.firstIndex { $0.hasPrefix("FILE ") })
        #expect(report[table - 1] == "" && report[4..<table].allSatisfy { $0.isEmpty || $0.hasPrefix("  ") })
    }
}
