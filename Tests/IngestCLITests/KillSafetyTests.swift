import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// SIGKILL at any moment of a run never leaves `current` pointing at
/// anything but a complete snapshot that passes `PRAGMA integrity_check`,
/// and never leaves a lock that blocks the next run. Each run has a newer
/// export of one pharmacy to publish, so kills land in the publish too.
@Suite(.serialized) struct KillSafetyTests {
    /// Where a kill is aimed: as each phase begins (the run's own JSON log
    /// names it), so every phase is hit whatever the machine's load.
    static let phases = ["reading reference data", "parsing stock feeds", "building indexes", "comparing with current",
                         "checking and publishing"]
    /// Phases with most of a run's work still ahead of them: a kill aimed
    /// there must land. At the later ones the run may end before the signal.
    static let phasesWithWorkAhead = Set(phases.prefix(3))

    @Test func killedRunsNeverDamageCurrent() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        // Enough work that kills land in every phase: parse, load, index, publish.
        for pharmacy in 1..<12 { temporary.write("feeds/rax_\(pharmacy).txt", bytes: Self.feed(pharmacy, exportedAt: RAXFeedBuilder.exportTime(daysAgo: 1)).bytes) }
        var run = 0
        /// Pharmacy 0's export, one minute newer and with other prices each time: always something to publish.
        func newerExport() {
            run += 1
            temporary.write("feeds/rax_0.txt", bytes: Self.feed(0, exportedAt: RAXFeedBuilder.exportTime(daysAgo: 0.5 - Double(run) / 1_440), shift: run).bytes)
        }
        let snapshots = "\(temporary.path)/s"
        let arguments = ["--feeds", feeds, "--snapshots", snapshots, "--keep", "3"]
        newerExport()
        let first = try CommandRunner.ingest(arguments)
        #expect(first.status == 0, "\(first.stderr)")

        func currentIsWhole(_ what: String) throws {
            let directory = SnapshotDirectory(path: snapshots)
            let current = try #require(directory.currentVersion(), "\(what)")
            let database = try SQLiteDatabase(path: directory.currentPath, readOnly: true)
            #expect(try database.integrityProblems() == nil, "\(what)")
            #expect(try database.scalarInt("SELECT count(*) FROM offers") == 18_000, "\(what)")
            try database.close()
            #expect(FileManager.default.fileExists(atPath: directory.manifestPath(current)), "\(what)")
        }

        // Each phase as it begins, twice over.
        for round in 0..<2 {
            for phase in Self.phases {
                newerExport()
                let landed = try CommandRunner.ingestKilled(atLogLineContaining: "\"phase\":\"\(phase)\"", logFile: "\(temporary.path)/run.log", arguments)
                if Self.phasesWithWorkAhead.contains(phase) { #expect(landed, "round \(round): the kill at \(phase) did not land") }
                try currentIsWhole("after a kill at \(phase)")
            }
        }
        // And at seeded random moments of a run's span; whether each lands is not asserted (a run's span moves with the machine's load).
        let start = Date()
        newerExport()
        #expect(try CommandRunner.ingest(arguments).status == 0)
        let span = Date().timeIntervalSince(start)
        var random = TestRandom(defaultSeed: 50)
        for _ in 0..<20 {
            newerExport()
            _ = try CommandRunner.ingestKilled(after: Double.random(in: 0...span, using: &random), arguments)
            try currentIsWhole("after a kill at a random moment, \(random.replay)")
        }
        // The next run is not blocked by any lock or leftover, publishes, and cleans up.
        newerExport()
        let last = try CommandRunner.ingest(arguments)
        #expect(last.status == 0 && last.stdout.contains("PUBLISHED"), "\(last.stdout)\(last.stderr)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: snapshots).filter { $0.hasPrefix(".staging-") || $0.hasPrefix(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    static func feed(_ pharmacy: Int, exportedAt: String, shift: Int = 0) -> RAXFeedBuilder {
        var feed = RAXFeedBuilder(pharmacyID: "\(1000 + pharmacy)", exportedAt: exportedAt)
        for item in 0..<1500 {
            feed.item(String(format: "MM%06d", item), name: "TOODE \(item) ÕLI", price: "\((item + shift) % 97),\(item % 100)",
                      quantity: "\((item + pharmacy) % 13)")
        }
        return feed
    }
}
