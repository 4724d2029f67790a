import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestCLI

/// `ingest quarantine` and `snapshots rollback --quarantine` over nights: a
/// bad feed rolled back is not loaded again the next night; its pharmacy is
/// carried over, and the report says why.
@Suite struct QuarantineTests {
    private func feed(_ temporary: TemporaryDirectory, pharmacy: String, price: String, daysAgo: Double) -> String {
        var feed = RAXFeedBuilder(pharmacyID: pharmacy, exportedAt: RAXFeedBuilder.exportTime(daysAgo: daysAgo))
        feed.item("MM1", price: price)
        feed.item("MM2", price: "3,00")
        return temporary.write("feeds/rax_\(pharmacy).txt", bytes: feed.bytes)
    }

    @Test func aRolledBackFeedStaysOutAndItsPharmacyIsCarried() throws {
        let temporary = TemporaryDirectory()
        let snapshots = "\(temporary.path)/s"
        let feeds = "\(temporary.path)/feeds"
        _ = feed(temporary, pharmacy: "2000", price: "1,00", daysAgo: 3)
        _ = feed(temporary, pharmacy: "2001", price: "1,00", daysAgo: 3)
        #expect(try CommandRunner.ingest(["--feeds", feeds, "--snapshots", snapshots, "--quiet"]).status == 0)
        let good = try #require(SnapshotDirectory(path: snapshots).currentVersion())
        // The next night 2001's export has a price a hundred times too high, and it is published (with --force past the check).
        let bad = feed(temporary, pharmacy: "2001", price: "100,00", daysAgo: 2)
        let badDigest = try FileDigest.sha256(path: bad)
        #expect(try CommandRunner.ingest(["--feeds", feeds, "--snapshots", snapshots, "--quiet", "--max-price-ratio", "0"]).status == 0)
        let rolled = try CommandRunner.ingest(["snapshots", "rollback", good, "--quarantine", "--snapshots", snapshots])
        #expect(rolled.status == 0)
        #expect(rolled.stdout == "current → \(good)\nquarantined \(badDigest.prefix(12)) rax_2001.txt\n")
        let list = try CommandRunner.ingest(["quarantine", "list", "--snapshots", snapshots])
        #expect(list.stdout.hasPrefix("\(badDigest.prefix(12))  "))
        #expect(list.stdout.hasSuffix("  rax_2001.txt  loaded by \(try SnapshotDirectory(path: snapshots).versions()[1]), rolled back to \(good)\n"))

        // The third night finds the same file: skipped, 2001 carried over at 1.00.
        let third = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", snapshots, "--verbose", "--max-price-ratio", "0"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stdout.contains("rax_2001.txt  2001      rax      quarantined"), "\(third.stdout)")
        let current = try #require(SnapshotDirectory(path: snapshots).currentVersion())
        let query = try SnapshotQuery("\(snapshots)/\(current).sqlite")
        #expect(query.rows("SELECT pharmacy_id, price_cents FROM offers WHERE aptcode = 'MM1' ORDER BY pharmacy_id") == [["2000", "100"], ["2001", "100"]])

        // Removed, it loads again the night after.
        let removed = try CommandRunner.ingest(["quarantine", "remove", String(badDigest.prefix(12)), "--snapshots", snapshots])
        #expect(removed.stdout == "removed \(badDigest.prefix(12)) rax_2001.txt\n")
        #expect(try CommandRunner.ingest(["quarantine", "list", "--snapshots", snapshots]).stdout == "nothing is quarantined\n")
        let fourth = try CommandRunner.ingest(["--feeds", feeds, "--snapshots", snapshots, "--verbose", "--max-price-ratio", "0"])
        #expect(fourth.stdout.contains("rax_2001.txt  2001      rax      loaded"), "\(fourth.stdout)")
    }

    @Test func addTakesFilesByTheirDigestAndRefusesWhatIsNotThere() throws {
        let temporary = TemporaryDirectory()
        let snapshots = temporary.subdirectory("s")
        let path = feed(temporary, pharmacy: "2000", price: "1,00", daysAgo: 1)
        let digest = try FileDigest.sha256(path: path)
        let added = try CommandRunner.ingest(["quarantine", "add", path, "--reason", "wrong prices", "--snapshots", snapshots])
        #expect(added.status == 0 && added.stdout == "quarantined \(digest.prefix(12)) rax_2000.txt\n")
        #expect(try CommandRunner.ingest(["quarantine", "add", path, "--snapshots", snapshots]).stdout == "already quarantined \(digest.prefix(12)) rax_2000.txt\n")
        let missing = try CommandRunner.ingest(["quarantine", "add", "\(temporary.path)/nope.txt", "--snapshots", snapshots])
        #expect(missing.status == 66 && missing.stderr == "ingest: \(temporary.path)/nope.txt does not exist; nothing is added\n")
        let unknown = try CommandRunner.ingest(["quarantine", "remove", "abc", "--snapshots", snapshots])
        #expect(unknown.status == 66 && unknown.stderr == "ingest: nothing quarantined is abc; see ingest quarantine list\n")
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: "\(snapshots)/quarantine.json"))
        let broken = try CommandRunner.ingest(["quarantine", "list", "--snapshots", snapshots])
        #expect(broken.status == 70)
        // A run does not start over a list it cannot read: it could let a quarantined feed in.
        let run = try CommandRunner.ingest(["--feeds", "\(temporary.path)/feeds", "--snapshots", snapshots])
        #expect(run.status != 0 && run.status == 70 && run.stderr.contains("quarantine.json cannot be read as the quarantine list"), "\(run.stderr)")
    }

    @Test(arguments: QuarantineCommand.exitCodes.map { ($0.name, $0.codes) })
    func eachSubcommandListsItsOwnExitCodes(name: String, codes: [(IngestCLI.ExitStatus, String)]) throws {
        let help = try CommandRunner.ingest(["quarantine", name, "--help"])
        let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "Exit codes:"))
        let listed = lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap { line -> Int32? in
            line.hasPrefix("  ") ? Int32(line.split(separator: " ").first ?? "") : nil
        }
        #expect(listed == codes.map(\.0.rawValue), "quarantine \(name) --help")
    }
}
