import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing

/// Issue 47, item 7: a snapshots folder that cannot be listed is an error,
/// never "no versions" (which prune, the next version's number and the
/// server's 410 once took it for); a folder not made yet has none.
@Suite struct SnapshotDirectoryListingTests {
    @Test func aFolderNotMadeYetHasNoVersionsAndOneThatCannotBeListedIsAnError() throws {
        let temporary = TemporaryDirectory()
        #expect(try SnapshotDirectory(path: "\(temporary.path)/not-yet").versions() == [])
        #expect(try SnapshotDirectory(path: "\(temporary.path)/not-yet").nextVersion(now: Date(timeIntervalSince1970: 0)) == "19700101T000000Z-001")
        let file = temporary.write("a-file", text: "not a folder")
        #expect(throws: POSIXFailure.self) { try SnapshotDirectory(path: file).versions() }
        #expect(throws: POSIXFailure.self) { try SnapshotDirectory(path: file).nextVersion() }
        #expect(throws: POSIXFailure.self) { try SnapshotDirectory(path: file).removeAbandonedFiles() }
        temporary.write("s/20260101T000000Z-001.sqlite", text: "")
        temporary.write("s/20260102T000000Z-001.sqlite", text: "")
        temporary.write("s/.staging-1.sqlite", text: "")
        temporary.write("s/20260103T000000Z-001.manifest.json", text: "{}")
        let listed = SnapshotDirectory(path: "\(temporary.path)/s")
        #expect(try listed.versions() == ["20260101T000000Z-001", "20260102T000000Z-001"])
        #expect(try listed.nextVersion(now: Date(timeIntervalSince1970: 0)) == "20260103T000000Z-002", "after the manifest left by a killed run too")
    }
}
