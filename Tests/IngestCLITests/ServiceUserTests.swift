import Foundation
import IngestTestSupport
import Testing

/// Issue 44, item 5: a manual run as root on the service's folder once left
/// a root-owned `.lock` that failed every later night (73). Root runs there
/// are refused with the command to run instead, or become the owner.
@Suite struct ServiceUserTests {
    @Test(.enabled(if: getuid() == 0, "needs root"))
    func aRootRunInAnotherUsersFolderIsRefusedOrBecomesTheOwner() throws {
        let temporary = TemporaryDirectory()
        var feed = RAXFeedBuilder(pharmacyID: "2000", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 1))
        feed.item("MM1", price: "1,00")
        temporary.write("feeds/rax_2000.txt", bytes: feed.bytes)
        let snapshots = temporary.subdirectory("s")
        for path in [temporary.path, "\(temporary.path)/feeds"] { chmod(path, 0o755) }
        chmod("\(temporary.path)/feeds/rax_2000.txt", 0o644)
        #expect(chown(snapshots, 65534, 65534) == 0)
        let name = String(cString: getpwuid(65534).pointee.pw_name)

        let refused = try CommandRunner.ingest(["--feeds", "feeds", "--snapshots", "s", "--mappings", "none", "--quiet"], in: temporary.path)
        #expect(refused.status == 64)
        #expect(refused.stderr == "ingest: the snapshots folder s belongs to \(name), and a run as root would leave files \(name) cannot change: "
            + "run as \(name): sudo -u \(name) ingest --feeds feeds --snapshots s --mappings none --quiet (or add --as-owner)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: snapshots).isEmpty, "nothing written")
        let quarantine = try CommandRunner.ingest(["quarantine", "add", "feeds/rax_2000.txt", "--snapshots", "s"], in: temporary.path)
        #expect(quarantine.status == 64)

        let owned = try CommandRunner.ingest(["--feeds", "feeds", "--snapshots", "s", "--quiet", "--as-owner"], in: temporary.path)
        #expect(owned.status == 0, "\(owned.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: snapshots)
        #expect(files.contains(".lock") && files.contains { $0.hasSuffix(".sqlite") })
        for file in files {
            var info = stat()
            #expect(lstat("\(snapshots)/\(file)", &info) == 0 && info.st_uid == 65534, "\(file) is owned by uid \(info.st_uid)")
        }
        // A dry run writes nothing there: root may make one.
        #expect(try CommandRunner.ingest(["--feeds", "feeds", "--snapshots", "s", "--quiet", "--dry-run"], in: temporary.path).status == 0)
    }
}
