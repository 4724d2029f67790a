import Foundation
import IngestCore
import IngestTestSupport
import Testing
@testable import IngestSnapshot

@Suite struct SnapshotPublisherTests {
    struct Injected: Error {}

    /// A staging file with one offer, as the writer leaves it.
    private func stage(in directory: SnapshotDirectory, price: Int64 = 100) throws -> String {
        let path = try directory.makeStagingFile()
        let writer = try SnapshotWriter(path: path)
        try writer.writeOffers(pharmacyID: "1", [OfferRow(aptcode: "A", priceCents: price, priceSince: "2026-01-01T00:00:00+02:00", quantity: 1)])
        try writer.writeMeta(["schema_version": "1"])
        try writer.finish()
        try writer.close()
        return path
    }

    private func publication(_ version: String) -> SnapshotPublisher.Publication {
        var rejects = Journal<Reject>()
        // In memory (no spill path): appending cannot fail.
        try! rejects.append(Reject(file: "f", line: 3, key: "k", reason: .badPrice, message: "m"))
        return .init(version: version, manifest: { snapshot in
            Manifest(version: version, schemaVersion: 1, createdAt: "2026-01-01T00:00:00Z", importerVersion: "test",
                     inputs: [], rowCounts: ["offers": 1], rejectCounts: [:], warningCounts: [:], snapshot: snapshot,
                     rejectsFile: "\(version).rejects.jsonl", warningsFile: "\(version).warnings.jsonl", forced: false)
        }, rejects: { [rejects] in try rejects.save(to: $0) }, warnings: { try Journal<Warning>().save(to: $0) })
    }

    @Test func publishesAndSwitchesCurrent() throws {
        let temporary = TemporaryDirectory()
        let directory = SnapshotDirectory(path: temporary.path)
        let publisher = SnapshotPublisher(directory: directory)
        let first = try directory.nextVersion()
        let manifest = try publisher.publish(stagingPath: try stage(in: directory), publication(first))
        #expect(directory.currentVersion() == first)
        let second = try directory.nextVersion()
        #expect(second > first)
        _ = try publisher.publish(stagingPath: try stage(in: directory, price: 200), publication(second))
        #expect(directory.currentVersion() == second)
        #expect(try directory.versions() == [first, second])

        // The manifest's digest is the published file's, and it reads back.
        #expect(manifest.snapshot.sha256 == (try FileDigest.sha256(path: directory.snapshotPath(first))))
        #expect(try directory.readManifest(first) == manifest)
        let rejects = try String(contentsOfFile: "\(temporary.path)/\(first).rejects.jsonl", encoding: .utf8)
        #expect(rejects.contains("\"reason\":\"bad_price\""))
        // Published files are readable by the read services' user.
        let mode = try FileManager.default.attributesOfItem(atPath: directory.snapshotPath(first))[.posixPermissions] as? Int
        #expect(mode == 0o644)
        // No staging file is left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(!names.contains { $0.hasPrefix(".staging-") })
    }

    /// A staging file whose index disagrees with its table is never
    /// published: the check runs while the file is sealed on another thread,
    /// and its failure wins.
    @Test func aSnapshotFailingItsIntegrityCheckIsNotPublished() throws {
        let temporary = TemporaryDirectory()
        let directory = SnapshotDirectory(path: temporary.path)
        let publisher = SnapshotPublisher(directory: directory)
        let first = try directory.nextVersion()
        _ = try publisher.publish(stagingPath: try stage(in: directory), publication(first))
        let damaged = try stage(in: directory, price: 200)
        let database = try SQLiteDatabase(path: damaged)
        try database.execute("PRAGMA writable_schema = ON")
        try database.execute("UPDATE sqlite_schema SET sql = replace(sql, 'price_100_cents)', 'price_100_cents) WHERE 0') WHERE name = 'offers_by_item'")
        try database.close()
        #expect(throws: SnapshotPublisher.IntegrityFailure.self) {
            try publisher.publish(stagingPath: damaged, publication(try directory.nextVersion()))
        }
        #expect(directory.currentVersion() == first)
        #expect(try directory.versions() == [first])
        #expect(!FileManager.default.fileExists(atPath: damaged))
    }

    @Test(arguments: SnapshotPublisher.Step.allCases)
    func aFailureBeforeTheSwitchLeavesCurrentUntouched(step: SnapshotPublisher.Step) throws {
        let temporary = TemporaryDirectory()
        let directory = SnapshotDirectory(path: temporary.path)
        var publisher = SnapshotPublisher(directory: directory)
        let first = try directory.nextVersion()
        _ = try publisher.publish(stagingPath: try stage(in: directory), publication(first))
        let before = try FileManager.default.contentsOfDirectory(atPath: temporary.path).sorted()

        publisher.faultInjector = { if $0 == step { throw Injected() } }
        let second = try directory.nextVersion()
        #expect(throws: Injected.self) {
            _ = try publisher.publish(stagingPath: try stage(in: directory, price: 999), publication(second))
        }
        #expect(directory.currentVersion() == first)
        // Nothing of the failed version remains: no snapshot, manifest or staging file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).sorted() == before)
        let query = try SnapshotQuery(directory.currentPath)
        #expect(query.int("SELECT price_cents FROM offers") == 100)
    }

    @Test func aDamagedStagingFileIsNeverPublished() throws {
        let temporary = TemporaryDirectory()
        let directory = SnapshotDirectory(path: temporary.path)
        let path = try stage(in: directory)
        // Overwrite a page in the middle of the file.
        let handle = FileHandle(forWritingAtPath: path)!
        handle.seek(toFileOffset: 4096)
        handle.write(Data(repeating: 0xAB, count: 4096 * 8))
        handle.closeFile()
        #expect(throws: (any Error).self) {
            _ = try SnapshotPublisher(directory: directory).publish(stagingPath: path, publication(try directory.nextVersion()))
        }
        #expect(directory.currentVersion() == nil)
        #expect(try directory.versions().isEmpty)
    }

    @Test func versionsSortInPublishOrderWithinOneSecond() throws {
        let temporary = TemporaryDirectory()
        let directory = SnapshotDirectory(path: temporary.path)
        let publisher = SnapshotPublisher(directory: directory)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var published: [String] = []
        for _ in 0..<3 {
            let version = try directory.nextVersion(now: now)
            _ = try publisher.publish(stagingPath: try stage(in: directory), publication(version))
            published.append(version)
        }
        #expect(published == ["20270115T080000Z-001", "20270115T080000Z-002", "20270115T080000Z-003"])
        // A clock that steps back still sorts after.
        #expect(try directory.nextVersion(now: now.addingTimeInterval(-3600)) == "20270115T080000Z-004")
    }

    @Test func pruneKeepsTheNewestAndNeverCurrent() throws {
        let temporary = TemporaryDirectory()
        let directory = SnapshotDirectory(path: temporary.path)
        let publisher = SnapshotPublisher(directory: directory, retention: 2)
        var versions: [String] = []
        for _ in 0..<4 {
            let version = try directory.nextVersion()
            _ = try publisher.publish(stagingPath: try stage(in: directory), publication(version))
            // The night prunes once its version is live (ImportRun), apart from the publication.
            _ = try publisher.prune()
            versions.append(version)
        }
        #expect(try directory.versions() == Array(versions.suffix(2)))
        // Roll current back to the older one, then prune to one: the newest
        // is kept by count, current because it is current.
        try publisher.switchCurrent(to: versions[2])
        #expect(try publisher.prune(keep: 1) == [])
        #expect(try directory.versions() == [versions[2], versions[3]])
        try publisher.switchCurrent(to: versions[3])
        #expect(try publisher.prune(keep: 1) == [versions[2]])
        #expect(!FileManager.default.fileExists(atPath: directory.manifestPath(versions[2])))
    }

    @Test func abandonedStagingFilesAreCleanedUp() throws {
        let temporary = TemporaryDirectory()
        let directory = SnapshotDirectory(path: temporary.path)
        let staging = try directory.makeStagingFile()
        temporary.write("20200101T000000Z-001.manifest.json", text: "{}")
        try directory.removeAbandonedFiles()
        #expect(!FileManager.default.fileExists(atPath: staging))
        #expect(!FileManager.default.fileExists(atPath: "\(temporary.path)/20200101T000000Z-001.manifest.json"))
        #expect(!(staging as NSString).lastPathComponent.hasSuffix(".sqlite") || staging.contains(".staging-"))
    }

    @Test func aSecondLockIsRefusedWithTheHoldersPID() throws {
        let temporary = TemporaryDirectory()
        let directory = SnapshotDirectory(path: temporary.path)
        let lock = try SnapshotLock(directory: directory)
        do {
            _ = try SnapshotLock(directory: directory)
            Issue.record("second lock was granted")
        } catch let held as SnapshotLock.Held {
            #expect(held.holderPID == getpid())
        }
        withExtendedLifetime(lock) {}
    }
}
