import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing

/// What `ingest-serve` sends for `?q=changes` is read from a file, not
/// held in memory (`OpenChangeset`): the night's own file checked against
/// its manifest, the nights combined written to a file whose name is gone
/// at once. Over three nights: every pair's file gives the bytes
/// `ChangesetChain.changeset` makes; a nightly file pruned after it was
/// opened is still sent whole; a damaged one is refused.
@Suite(.serialized) struct OpenChangesetTests {
    @Test func filesGiveTheChainsBytesSurvivePruningAndRefuseDamage() throws {
        let temporary = TemporaryDirectory()
        for (night, day) in [("n1", "2025-11-21"), ("n2", "2025-11-22"), ("n3", "2025-11-23")] {
            try ServeEndToEndTests.generate(temporary, night, night == "n1" ? [] : ["--days-later", night == "n2" ? "1" : "2", "--price-change-rate", "0.3"])
            try ServeEndToEndTests.importNight(temporary, night, day: day)
        }
        let directory = SnapshotDirectory(path: "\(temporary.path)/s")
        let versions = try directory.versions().sorted()
        try #require(versions.count == 3)
        let scratch = temporary.subdirectory("scratch")

        for (from, to) in [(versions[0], versions[1]), (versions[1], versions[2]), (versions[0], versions[2])] {
            let file = try #require(try ChangesetChain.openChangeset(from: from, to: to, in: directory, temporaryDirectory: scratch))
            let expected = try #require(try ChangesetChain.changeset(from: from, to: to, in: directory))
            #expect(try file.data() == expected, "\(from) → \(to)")
            #expect(file.size == expected.count && file.digest == ChangesetDigest(of: expected))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty, "the combined changeset's file has no name")
        #expect(try ChangesetChain.openChangeset(from: versions[2], to: versions[0], in: directory, temporaryDirectory: scratch) == nil,
                "no chain leads backwards")

        // Opened, then pruned: the descriptor still reads the bytes that were checked.
        let nightly = try OpenChangeset.nightly(versions[2], in: directory)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.changesetPath(versions[2])))
        try FileManager.default.removeItem(atPath: directory.changesetPath(versions[2]))
        #expect(try nightly.data() == bytes)
        #expect(throws: POSIXFailure.self) { try OpenChangeset.nightly(versions[2], in: directory) }

        // One byte changed: refused against the manifest, never handed out.
        var damaged = try Data(contentsOf: URL(fileURLWithPath: directory.changesetPath(versions[1])))
        damaged[damaged.count / 2] ^= 0x01
        try damaged.write(to: URL(fileURLWithPath: directory.changesetPath(versions[1])))
        #expect(throws: ChangesetChain.Damaged.self) { try OpenChangeset.nightly(versions[1], in: directory) }
    }
}
