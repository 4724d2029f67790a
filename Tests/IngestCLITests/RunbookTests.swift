import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// Issue 44: docs/OPERATIONS.md's runbook, row by row, followed as written.
/// Each test stages the night the row is about, checks the exit code and
/// what the operator is told, then does what the row's advice says and
/// checks that the next run recovers. (ExitCodeTests produces every code;
/// these show the advice works. 73 and 74 need a foreign owner or a full
/// disk: ServiceUserTests and FaultInjectionTests stage those.)
@Suite struct RunbookTests {
    /// A world of `count` pharmacies, each with a RAX export of `day` (November 2026) at 23:05.
    private struct World {
        let temporary = TemporaryDirectory()
        var snapshots: String { "\(temporary.path)/s" }
        var feeds: String { "\(temporary.path)/feeds" }

        func deliver(day: Int, pharmacies: ClosedRange<Int>) throws {
            if FileManager.default.fileExists(atPath: feeds) { try FileManager.default.removeItem(atPath: feeds) }
            try FileManager.default.createDirectory(atPath: feeds, withIntermediateDirectories: true)
            for id in pharmacies {
                var feed = RAXFeedBuilder(pharmacyID: "\(4000 + id)", exportedAt: String(format: "202611%02dT2305", day))
                for item in 0..<5 { feed.item("MM\(item)", name: "TOODE \(item)", price: "\(item + day),00", quantity: "\(item + 1)") }
                #expect(FileManager.default.createFile(atPath: "\(feeds)/rax_\(4000 + id).txt", contents: Data(feed.bytes)))
            }
        }

        /// The night after `day`, as cron runs it (`--quiet`) unless `quiet` is false.
        func night(day: Int, _ extra: [String] = [], quiet: Bool = true) throws -> CommandResult {
            try CommandRunner.ingest(["--feeds", feeds, "--snapshots", snapshots, "--mappings", RepositoryFiles.mappingsDirectory,
                                      "--as-of", String(format: "2026-11-%02dT06:00:00+02:00", day + 1)] + (quiet ? ["--quiet"] : []) + extra)
        }

        func current() throws -> String { try FileManager.default.destinationOfSymbolicLink(atPath: "\(snapshots)/current") }
    }

    /// 3: "when the fall is real …, run again with `--force`".
    @Test func aGateThatFailsOnARealFallIsPassedWithForce() throws {
        let world = World()
        try world.deliver(day: 20, pharmacies: 1...12)
        #expect(try world.night(day: 20).status == 0)
        let before = try world.current()
        try world.deliver(day: 21, pharmacies: 1...3)
        let gated = try world.night(day: 21)
        #expect(gated.status == 3, "\(gated.stdout)")
        #expect(gated.stdout.hasPrefix("NOT PUBLISHED (quality gates): 12 pharmacies (3 fresh, 9 stale), 60 offers, 0 rejects"), "\(gated.stdout)")
        #expect(gated.stdout.hasSuffix("\n  NOT PUBLISHED: gate fresh_share: 3 of current's 12 pharmacies sent a feed that loaded tonight, 25.0 % "
            + "(at least 50 % needed, --min-fresh-share) (--force publishes anyway)\n"), "the report names the failed gate and the way out")
        #expect(try world.current() == before, "current keeps serving yesterday")
        let forced = try world.night(day: 21, ["--force"])
        #expect(forced.status == 0, "\(forced.stdout)\(forced.stderr)")
        #expect(try world.current() != before)
        let manifest = try SnapshotDirectory(path: world.snapshots).readManifest(try #require(SnapshotDirectory(path: world.snapshots).currentVersion()))
        #expect(manifest.forced == true, "the manifest records the override")
    }

    /// 5: "the snapshot is live; fix the output path … before tomorrow".
    @Test func anUnwritableReportPathLeavesTheSnapshotLiveAndAFixedPathWritesIt() throws {
        let world = World()
        try world.deliver(day: 20, pharmacies: 1...2)
        let missing = "\(world.temporary.path)/no-such-folder/report.json"
        let result = try world.night(day: 20, ["--report", missing])
        #expect(result.status == 5, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains(missing), "the message names the path: \(result.stderr)")
        let live = try world.current()
        try world.deliver(day: 21, pharmacies: 1...2)
        let fixed = "\(world.temporary.path)/report.json"
        let next = try world.night(day: 21, ["--report", fixed])
        #expect(next.status == 0, "\(next.stdout)\(next.stderr)")
        #expect(try world.current() != live)
        #expect(FileManager.default.fileExists(atPath: fixed))
    }

    /// 65: "check the delivery …; `current` keeps serving yesterday's data".
    @Test func aNightWithoutFeedsKeepsYesterdayAndTheDeliveredFeedsPublish() throws {
        let world = World()
        try world.deliver(day: 20, pharmacies: 1...2)
        #expect(try world.night(day: 20).status == 0)
        let before = try world.current()
        try FileManager.default.removeItem(atPath: world.feeds)
        let empty = try world.night(day: 21)
        #expect(empty.status == 65)
        #expect(empty.stdout.hasSuffix("  NOT PUBLISHED: no stock feed loaded: feeds folder \(world.feeds) does not exist or is not a directory (is it mounted?)\n"),
                "\(empty.stdout)")
        #expect(try world.current() == before)
        try world.deliver(day: 21, pharmacies: 1...2)  // the delivery, mended
        #expect(try world.night(day: 21).status == 0)
        #expect(try world.current() != before)
    }

    /// 66: "the message names the path: restore it or fix the path".
    @Test func aMissingMappingsFolderIsNamedAndRestoringItLetsTheNightRun() throws {
        let world = World()
        try world.deliver(day: 20, pharmacies: 1...2)
        let mappings = "\(world.temporary.path)/mappings"
        let missing = try world.night(day: 20, ["--mappings", mappings])
        #expect(missing.status == 66)
        #expect(missing.stderr == "ingest: mappings directory \(mappings) (--mappings) does not exist or is not a directory\n")
        try FileManager.default.copyItem(atPath: RepositoryFiles.mappingsDirectory, toPath: mappings)
        #expect(try world.night(day: 20, ["--mappings", mappings]).status == 0)
    }

    /// 70: "`ingest snapshots verify`, then `ingest snapshots rollback VERSION`
    /// to the newest good version".
    @Test func aDamagedCurrentIsFoundByVerifyAndRolledBackThenTheNightRuns() throws {
        let world = World()
        try world.deliver(day: 19, pharmacies: 1...2)
        #expect(try world.night(day: 19).status == 0)
        let good = try #require(SnapshotDirectory(path: world.snapshots).currentVersion())
        try world.deliver(day: 20, pharmacies: 1...2)
        #expect(try world.night(day: 20).status == 0)
        let damaged = try #require(SnapshotDirectory(path: world.snapshots).currentVersion())
        #expect(damaged != good)
        // The disk loses the file's head.
        let file = try #require(FileHandle(forWritingAtPath: "\(world.snapshots)/\(try world.current())"))
        try file.write(contentsOf: Data(repeating: 0, count: 4096))
        try file.close()

        try world.deliver(day: 21, pharmacies: 1...2)
        let stopped = try world.night(day: 21)
        #expect(stopped.status == 70, "\(stopped.stdout)\(stopped.stderr)")
        let verify = try CommandRunner.ingest(["snapshots", "verify", "--snapshots", world.snapshots])
        #expect(verify.status == 70, "\(verify.stdout)\(verify.stderr)")
        #expect((verify.stdout + verify.stderr).contains(damaged))
        #expect(try CommandRunner.ingest(["snapshots", "verify", "--snapshots", world.snapshots, good]).status == 0)
        let rollback = try CommandRunner.ingest(["snapshots", "rollback", "--snapshots", world.snapshots, good])
        #expect(rollback.status == 0, "\(rollback.stdout)\(rollback.stderr)")
        let next = try world.night(day: 21)
        #expect(next.status == 0, "\(next.stdout)\(next.stderr)")
        let published = try #require(SnapshotDirectory(path: world.snapshots).currentVersion())
        #expect(published != good && published != damaged)
    }

    /// 75: "another import is still running: wait for it; … if none is running, run again".
    @Test func aHeldLockStopsTheRunAndTheNextRunAfterItsReleasePublishes() throws {
        let world = World()
        try world.deliver(day: 20, pharmacies: 1...2)
        let snapshots = SnapshotDirectory(path: world.snapshots)
        try snapshots.create()
        var lock: SnapshotLock? = try SnapshotLock(directory: snapshots)
        let locked = try world.night(day: 20)
        #expect(locked.status == 75)
        #expect(locked.stderr.contains("PID \(getpid())"), "the message names the holder: \(locked.stderr)")
        #expect(lock != nil)
        lock = nil  // the other run ends
        #expect(try world.night(day: 20).status == 0)
    }

    /// 78: "the message names the file and key: fix the mapping, then
    /// `ingest --dry-run` shows what it reads before the next night".
    @Test func aBrokenMappingIsNamedAndTheDryRunShowsTheMendedOneReads() throws {
        let world = World()
        try world.deliver(day: 20, pharmacies: 1...2)
        let mappings = "\(world.temporary.path)/mappings"
        try FileManager.default.copyItem(atPath: RepositoryFiles.mappingsDirectory, toPath: mappings)
        let mapping = "\(mappings)/zales24.mapping.toml"
        let good = try String(contentsOfFile: mapping, encoding: .utf8)
        try (good + "\n[nonsense]\nkey = 1\n").write(toFile: mapping, atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: RepositoryFiles.feed("zales24_export_2013-06-01.csv"),
                                         toPath: "\(world.feeds)/zales24_export_2013-06-01.csv")
        let broken = try world.night(day: 20, ["--mappings", mappings])
        #expect(broken.status == 78, "\(broken.stdout)\(broken.stderr)")
        #expect(broken.stderr.contains("zales24.mapping.toml") && broken.stderr.contains("nonsense"), "\(broken.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(world.snapshots)/current"))
        try good.write(toFile: mapping, atomically: true, encoding: .utf8)
        let dry = try world.night(day: 20, ["--mappings", mappings, "--dry-run", "--verbose"], quiet: false)
        #expect(dry.status == 0, "\(dry.stdout)\(dry.stderr)")
        #expect(dry.stdout.contains("zales24_export_2013-06-01.csv"), "\(dry.stdout)")
        #expect(!FileManager.default.fileExists(atPath: "\(world.snapshots)/current"), "a dry run publishes nothing")
    }

    /// 64: "the message names the option".
    @Test func aWrongCommandLineNamesTheOption() throws {
        let world = World()
        let result = try world.night(day: 20, ["--max-stale-dayz", "3"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--max-stale-dayz"), "\(result.stderr)")
    }
}
