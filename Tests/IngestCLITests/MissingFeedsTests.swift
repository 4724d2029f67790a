import Foundation
import IngestTestSupport
import Testing

/// Issue 44, item 1: a night whose feeds never came is loud. Before, an empty
/// or unmounted feeds folder, or feeds the `ingest` user could not read, gave
/// exit 0, nothing under `--quiet`, and a last-success time that moved on
/// while every pharmacy went stale.
@Suite struct MissingFeedsTests {
    /// Two pharmacies' exports of 20 November, for the night of the 21st.
    private func feeds(_ temporary: TemporaryDirectory) -> String {
        let feeds = temporary.subdirectory("feeds")
        for id in ["3001", "3002"] {
            var feed = RAXFeedBuilder(pharmacyID: id, exportedAt: "20261120T2305")
            for item in 0..<4 { feed.item("MM\(item)", name: "TOODE \(item)", price: "\(item + 1),00", quantity: "\(item)") }
            temporary.write("feeds/rax_\(id).txt", bytes: feed.bytes)
        }
        return feeds
    }

    private func night(_ temporary: TemporaryDirectory, feeds: String, asOf: String, _ extra: [String] = []) throws -> CommandResult {
        try CommandRunner.ingest(["--feeds", feeds, "--snapshots", "\(temporary.path)/s", "--mappings", RepositoryFiles.mappingsDirectory,
                                  "--as-of", asOf, "--quiet", "--metrics-file", "\(temporary.path)/ingest.prom"] + extra)
    }

    private func current(_ temporary: TemporaryDirectory) throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "\(temporary.path)/s/current")
    }

    @Test func anEmptyOrUnmountedFeedsFolderExits65WithOneLineAndMetricsAndCurrentStays() throws {
        let temporary = TemporaryDirectory()
        let first = try night(temporary, feeds: feeds(temporary), asOf: "2026-11-21T06:00:00+02:00")
        #expect(first.status == 0 && first.stdout == "", "\(first.stdout)\(first.stderr)")
        let published = try current(temporary)
        let success = try PrometheusTextfile(contentsOfFile: "\(temporary.path)/ingest.prom")["ingest_last_success_timestamp_seconds"]

        let empty = temporary.subdirectory("empty")
        for (folder, why) in [(empty, "feeds folder \(empty) is empty"),
                              ("\(temporary.path)/unmounted", "feeds folder \(temporary.path)/unmounted does not exist or is not a directory (is it mounted?)")] {
            let result = try night(temporary, feeds: folder, asOf: "2026-11-22T06:00:00+02:00")
            #expect(result.status == 65, "\(folder)")
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 3 && lines.last == "", "\(result.stdout)")
            #expect(lines.first?.hasPrefix("NOT PUBLISHED (no stock feed): 2 pharmacies (0 fresh, 2 stale), 8 offers, 0 rejects, 1 warning in ") == true,
                    "\(result.stdout)")
            #expect(lines.dropFirst().first.map(String.init) == "  NOT PUBLISHED: no stock feed loaded: \(why)")
            #expect(result.stderr == "")
            #expect(try current(temporary) == published)
            let metrics = try PrometheusTextfile(contentsOfFile: "\(temporary.path)/ingest.prom")
            #expect(metrics["ingest_last_run_exit_code"] == 65)
            #expect(metrics["ingest_last_run_success"] == 0)
            #expect(metrics["ingest_last_success_timestamp_seconds"] == success, "the success time does not move")
            #expect(metrics["ingest_quality_gate_failed{gate=\"no_stock_feed\"}"] == 1)
            #expect(metrics["ingest_carried_over_pharmacies"] == 2)
        }
    }

    /// The night's files are there but were all loaded on an earlier night
    /// (the transfer job died): the same as none, said with the counts.
    @Test func onlyFilesLeftFromAnEarlierNightIsNoStockFeed() throws {
        let temporary = TemporaryDirectory()
        let feeds = feeds(temporary)
        #expect(try night(temporary, feeds: feeds, asOf: "2026-11-21T06:00:00+02:00").status == 0)
        // A re-run the same day is harmless: nothing new, exit 0, silent.
        let rerun = try night(temporary, feeds: feeds, asOf: "2026-11-21T09:00:00+02:00")
        #expect(rerun.status == 0 && rerun.stdout == "")
        let later = try night(temporary, feeds: feeds, asOf: "2026-11-22T06:00:00+02:00")
        #expect(later.status == 65)
        #expect(later.stdout.hasSuffix("\n  NOT PUBLISHED: no stock feed loaded: feeds folder \(feeds) holds 2 files, none a stock feed loaded tonight: 2 skipped\n"),
                "\(later.stdout)")
    }

    /// A feed the service user cannot open is `unreadable`: shown under
    /// `--quiet`, counted in metrics; its pharmacy is carried over. Root reads
    /// any file, so as root the run is made as `nobody`.
    @Test(.enabled(if: getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs a user that cannot read a file"))
    func aFeedThatCannotBeOpenedIsUnreadableAndShownUnderQuiet() throws {
        let temporary = TemporaryDirectory()
        let feeds = feeds(temporary)
        var extra = RAXFeedBuilder(pharmacyID: "3003", exportedAt: "20261120T2305")
        extra.item("MM1", name: "TOODE", price: "1,00", quantity: "1")
        temporary.write("feeds/rax_3003.txt", bytes: extra.bytes)
        chmod("\(feeds)/rax_3003.txt", 0o000)
        let binary = "\(temporary.path)/ingest"
        try FileManager.default.copyItem(atPath: RepositoryFiles.ingestBinary, toPath: binary)
        for path in [temporary.path, feeds] { chmod(path, 0o777) }
        let arguments = ["--feeds", feeds, "--snapshots", "\(temporary.path)/s", "--mappings", RepositoryFiles.mappingsDirectory,
                         "--as-of", "2026-11-21T06:00:00+02:00", "--quiet", "--metrics-file", "\(temporary.path)/ingest.prom"]
        let result = getuid() == 0
            ? try CommandRunner.executable("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", binary] + arguments)
            : try CommandRunner.executable(binary, arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3, "\(result.stdout)")
        #expect(lines.first?.hasPrefix("PUBLISHED ") == true)
        #expect(lines.dropFirst().first.map(String.init) == "  unreadable: rax_3003.txt: cannot open: Permission denied")
        let metrics = try PrometheusTextfile(contentsOfFile: "\(temporary.path)/ingest.prom")
        #expect(metrics["ingest_feeds{outcome=\"unreadable\"}"] == 1)
        #expect(metrics["ingest_feeds{outcome=\"loaded\"}"] == 2)
    }
}
