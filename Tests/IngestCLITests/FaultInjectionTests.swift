import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// A small tmpfs as the snapshots directory: a full disk and a read-only
/// mount, for real. Needs root with mount rights (CI and these machines
/// have them); elsewhere the suite is skipped and says so.
@Suite(.serialized, .enabled(if: TmpfsMount.available, "mounting a tmpfs is not permitted here"))
struct FaultInjectionTests {
    private func feeds(_ temporary: TemporaryDirectory, pharmacies: Int, items: Int) -> String {
        let feeds = temporary.subdirectory("feeds-\(pharmacies)x\(items)")
        for pharmacy in 0..<pharmacies {
            var feed = RAXFeedBuilder(pharmacyID: "\(3000 + pharmacy)", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 1))
            for item in 0..<items { feed.item(String(format: "MM%06d", item), name: "TOODE NUMBER \(item) ÕLI KAPSLID", price: "\(item % 90 + 1),00") }
            temporary.write("feeds-\(pharmacies)x\(items)/rax_\(pharmacy).txt", bytes: feed.bytes)
        }
        return feeds
    }

    @Test func aFullDiskFailsCleanlyAndLeavesCurrentAlone() throws {
        let temporary = TemporaryDirectory()
        let mount = try TmpfsMount(at: temporary.subdirectory("snapshots"), size: "1500k")
        defer { mount.unmount() }
        let small = feeds(temporary, pharmacies: 1, items: 20)
        #expect(try CommandRunner.ingest(["--feeds", small, "--snapshots", mount.path]).status == 0)
        let directory = SnapshotDirectory(path: mount.path)
        let current = try #require(directory.currentVersion())
        let before = try FileManager.default.contentsOfDirectory(atPath: mount.path).sorted()

        let big = feeds(temporary, pharmacies: 8, items: 4000)
        let result = try CommandRunner.ingest(["--feeds", big, "--snapshots", mount.path, "--force"])
        #expect(result.status == 74, "stderr: \(result.stderr)")
        #expect(result.stderr.lowercased().contains("full") || result.stderr.contains("space"))
        #expect(directory.currentVersion() == current)
        #expect(try FileManager.default.contentsOfDirectory(atPath: mount.path).sorted() == before, "a partial version or staging file was left")
        let database = try SQLiteDatabase(path: directory.currentPath, readOnly: true)
        #expect(try database.integrityProblems() == nil)
        try database.close()
    }

    @Test func aReadOnlySnapshotsDirectoryGivesAClearError() throws {
        let temporary = TemporaryDirectory()
        let mount = try TmpfsMount(at: temporary.subdirectory("snapshots"), size: "4m")
        defer { mount.unmount() }
        let small = feeds(temporary, pharmacies: 1, items: 20)
        #expect(try CommandRunner.ingest(["--feeds", small, "--snapshots", mount.path]).status == 0)
        let current = SnapshotDirectory(path: mount.path).currentVersion()
        try mount.remountReadOnly()
        let result = try CommandRunner.ingest(["--feeds", small, "--snapshots", mount.path])
        #expect(result.status == 73)
        #expect(result.stderr.contains("Read-only file system"))
        #expect(result.stderr.contains(mount.path))
        #expect(SnapshotDirectory(path: mount.path).currentVersion() == current)
    }

    /// `generate` on a full disk: it says so and exits 74, never "generated" over cut files.
    @Test func generateOnAFullDiskFailsLoudly() throws {
        let temporary = TemporaryDirectory()
        let mount = try TmpfsMount(at: temporary.subdirectory("out"), size: "256k")
        defer { mount.unmount() }
        let result = try CommandRunner.ingest(["generate", "--out", mount.path, "--pharmacies", "30", "--items", "2000", "--seed", "1"])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("no space left on the device; the feeds folder is incomplete"))
        #expect(!result.stdout.contains("generated"))
    }

    /// `snapshots prune` and `rollback` on a read-only folder: 73, nothing changed.
    @Test func snapshotsSubcommandsOnAReadOnlyFolderExit73() throws {
        let temporary = TemporaryDirectory()
        let mount = try TmpfsMount(at: temporary.subdirectory("snapshots"), size: "4m")
        defer { mount.unmount() }
        for days in [2.0, 1.0] {
            var feed = RAXFeedBuilder(pharmacyID: "3000", exportedAt: RAXFeedBuilder.exportTime(daysAgo: days))
            feed.item("MM1", price: "1,00")
            temporary.write("feeds/rax.txt", bytes: feed.bytes)
            #expect(try CommandRunner.ingest(["--feeds", "\(temporary.path)/feeds", "--snapshots", mount.path]).status == 0)
        }
        let directory = SnapshotDirectory(path: mount.path)
        let (versions, current) = (try directory.versions(), directory.currentVersion())
        try mount.remountReadOnly()
        let prune = try CommandRunner.ingest(["snapshots", "prune", "--keep", "1", "--snapshots", mount.path])
        #expect(prune.status == 73)
        #expect(prune.stderr.contains("Read-only file system"))
        let rollback = try CommandRunner.ingest(["snapshots", "rollback", versions[0], "--snapshots", mount.path])
        #expect(rollback.status == 73)
        #expect(try directory.versions() == versions)
        #expect(directory.currentVersion() == current)
    }
}

/// A tmpfs mounted for one test.
struct TmpfsMount {
    let path: String

    static let available: Bool = {
        let probe = NSTemporaryDirectory() + "ingest-mount-probe-\(getpid())"
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe])) == 0 else { return false }
        _ = try? run("/bin/umount", [probe])
        return true
    }()

    init(at path: String, size: String) throws {
        self.path = path
        guard try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]) == 0 else {
            throw NSError(domain: "TmpfsMount", code: 1)
        }
    }

    func remountReadOnly() throws {
        guard try Self.run("/bin/mount", ["-o", "remount,ro", path]) == 0 else { throw NSError(domain: "TmpfsMount", code: 2) }
    }

    func unmount() { _ = try? Self.run("/bin/umount", [path]) }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
