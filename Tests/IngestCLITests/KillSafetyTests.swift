import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// SIGKILL at random moments of many runs never leaves `current` pointing at
/// anything but a complete snapshot that passes `PRAGMA integrity_check`, and
/// never leaves a lock that blocks the next run.
@Suite(.serialized) struct KillSafetyTests {
    @Test func killedRunsNeverDamageCurrent() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        // Enough work that kills land in every phase: parse, load, index, publish.
        for pharmacy in 0..<12 {
            var feed = RAXFeedBuilder(pharmacyID: "\(1000 + pharmacy)")
            for item in 0..<1500 {
                feed.item(String(format: "MM%06d", item), name: "TOODE \(item) ÕLI", price: "\(item % 97),\(item % 100)", quantity: "\((item + pharmacy) % 13)")
            }
            temporary.write("feeds/rax_\(pharmacy).txt", bytes: feed.bytes)
        }
        let snapshots = "\(temporary.path)/s"
        let arguments = ["--feeds", feeds, "--snapshots", snapshots, "--keep", "3"]
        let first = try CommandRunner.ingest(arguments)
        #expect(first.status == 0)

        // Time one run, then kill at random points across that span.
        let start = Date()
        #expect(try CommandRunner.ingest(arguments).status == 0)
        let span = Date().timeIntervalSince(start)

        var landed = 0
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            if try CommandRunner.ingestKilled(after: Double.random(in: 0...span, using: &generator), arguments) { landed += 1 }
            let directory = SnapshotDirectory(path: snapshots)
            let current = try #require(directory.currentVersion())
            let database = try SQLiteDatabase(path: directory.currentPath, readOnly: true)
            #expect(try database.integrityProblems() == nil)
            #expect(try database.scalarInt("SELECT count(*) FROM offers") == 18_000)
            try database.close()
            #expect(FileManager.default.fileExists(atPath: directory.manifestPath(current)))
        }
        #expect(landed > 20, "most kills should land while a run is in progress (\(landed) did)")
        // The next run is not blocked by any lock or leftover, and cleans up.
        #expect(try CommandRunner.ingest(arguments).status == 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: snapshots).filter { $0.hasPrefix(".staging-") || $0.hasPrefix(".tmp-") }
        #expect(leftovers.isEmpty)
    }
}
