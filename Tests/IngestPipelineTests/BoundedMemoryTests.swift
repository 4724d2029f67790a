import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// Issue 17: a feed larger than one sort run, and rejects by the ten
/// thousand, go through the disk and come out whole: the same snapshot and
/// the same rejects file as if memory had held them.
@Suite struct BoundedMemoryTests {
    private func run(_ temporary: TemporaryDirectory) throws -> RunReport {
        try ImportRun(options: ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/s",
                                             mappingsDirectory: RepositoryFiles.mappingsDirectory, parseThreads: 2)).run()
    }

    /// 40,000 items in shuffled order (more than one run of `OfferSorter`),
    /// every tenth sent twice: sorted, each aptcode once, the later copy
    /// rejected with its own line.
    @Test func aFeedLargerThanOneSortRunIsSortedAndDeduplicated() throws {
        let temporary = TemporaryDirectory()
        var generator = TestRandom(defaultSeed: 22)
        let count = OfferSorter.runLength + 7_232
        var lines = (0..<count).map { index in (code: String(format: "MM%07d", index), price: "\(index % 90 + 1),00") }
        lines += stride(from: 0, to: count, by: 10).map { (code: String(format: "MM%07d", $0), price: "99,00") }
        lines.shuffle(using: &generator)
        var feed = RAXFeedBuilder(pharmacyID: "5", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 1))
        for line in lines { feed.item(line.code, price: line.price) }
        temporary.write("feeds/rax_5.txt", bytes: feed.bytes)
        _ = temporary.subdirectory("feeds")
        var options = ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/s",
                                    mappingsDirectory: RepositoryFiles.mappingsDirectory, parseThreads: 2)
        options.gates.maxRejectRatePercent = 20
        let report = try ImportRun(options: options).run()
        let version = try #require(report.publishedVersion)
        let duplicates = count / 10
        #expect(report.rejectCounts == [.duplicateKey: duplicates])
        let query = try SnapshotQuery(SnapshotDirectory(path: "\(temporary.path)/s").snapshotPath(version))
        #expect(query.int("SELECT count(*) FROM offers") == count)
        #expect(query.int("SELECT count(*) FROM items") == count)
        // The first copy in the file wins: its price is the item's own, never 99,00 (unless it came first).
        let firstLines = Dictionary(lines.enumerated().map { ($1.code, $0) }, uniquingKeysWith: min)
        let expected = lines.enumerated().filter { firstLines[$1.code] == $0 }.reduce(0) { $0 + Int($1.element.price.dropLast(3))! * 100 }
        #expect(query.int("SELECT sum(price_cents) FROM offers") == expected, "\(generator.replay)")
        let rejectsFile = "\(temporary.path)/s/\(version).rejects.jsonl"
        let rejects = try String(contentsOfFile: rejectsFile, encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(Reject.self, from: Data($0.utf8)) }
        #expect(rejects.count == duplicates)
        #expect(Set(rejects.map(\.key)).count == duplicates)
        for reject in rejects.prefix(50) {
            // The rejected copy's line is the later of the two (line 1 is the header).
            let positions = lines.indices.filter { lines[$0].code == reject.key }
            #expect(reject.line == positions.max()! + 2)
        }
    }

    /// A truncated feed of 25,000 items: every item a reject, in the file;
    /// memory, the manifest and the JSON report keep counts and a sample.
    @Test func rejectsBeyondMemoryGoToTheRejectsFileAndTheReportsKeepASample() throws {
        let temporary = TemporaryDirectory()
        let items = 25_000
        var cut = RAXFeedBuilder(pharmacyID: "6", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 1))
        for index in 0..<items { cut.item(String(format: "MM%07d", index)) }
        cut.includeTrailer = false
        temporary.write("feeds/rax_6.txt", bytes: cut.bytes)
        var good = RAXFeedBuilder(pharmacyID: "7", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 1))
        good.item("GOOD")
        temporary.write("feeds/rax_7.txt", bytes: good.bytes)
        let report = try run(temporary)
        let version = try #require(report.publishedVersion)
        #expect(report.rejects.total == items)
        #expect(report.rejectCounts == [.trailerMismatch: items])
        #expect(report.rejects.count == Journal<Reject>.samplePerKind)
        let directory = SnapshotDirectory(path: "\(temporary.path)/s")
        let lines = try String(contentsOfFile: "\(directory.path)/\(version).rejects.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == items)
        let keys = try lines.map { try JSONDecoder().decode(Reject.self, from: Data($0.utf8)).key }
        #expect(Set(keys).count == items)
        let manifest = try directory.readManifest(version)
        #expect(manifest.rejectCounts == ["trailer_mismatch": items])
        #expect(manifest.rejectSample?.count == Manifest.sampledPerReason)
        let document = try JSONDecoder().decode(RunReportDocument.self, from: RunReportDocument(report, run: .finished(report)).encoded())
        #expect(document.rejects.count == Journal<Reject>.samplePerKind)
        #expect(document.rejectCounts == ["trailer_mismatch": items])
        let staging = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".staging") }
        #expect(staging.isEmpty, "spills and journals are gone: \(staging)")
    }
}
