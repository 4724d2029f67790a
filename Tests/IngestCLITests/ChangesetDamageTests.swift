import Foundation
import IngestGenerator
import IngestSnapshot
import IngestTestSupport
import Testing

/// Issue 44, item 7: `snapshots apply` on a damaged changeset whose digest
/// matches the damage (the attacker, or a bug, computed it) once hung for
/// over 14 minutes, crashed libsqlite3, or exited 0 with wrong data. Now it
/// reads the changeset through in a child process first, and checks the
/// applied copy against the newer version's content digests before it
/// commits: it refuses (65) with the copy untouched, never hangs or crashes.
@Suite struct ChangesetDamageTests {
    @Test func truncatedAndFlippedChangesetsNeverHangCrashOrTouchTheCopy() throws {
        let temporary = TemporaryDirectory()
        let (directory, versions) = try SnapshotChangesetTests.twoNights(temporary, seed: 8)
        let changeset = try Data(contentsOf: URL(fileURLWithPath: directory.changesetPath(versions[1])))
        let pristine = "\(temporary.path)/pristine.sqlite"
        try FileManager.default.copyItem(atPath: directory.snapshotPath(versions[0]), toPath: pristine)
        let before = try FileDigest.sha256(path: pristine)
        let seed = UInt64(44)
        var random = SeededRandom(seed: seed)
        var damaged: [(String, Data)] = [1, 2, 7, changeset.count / 3, changeset.count / 2, changeset.count - 1].map { length in
            ("truncated to \(length) bytes", changeset.prefix(length))
        }
        for _ in 0..<200 {
            let position = Int.random(in: 0..<changeset.count, using: &random)
            let bit = Int.random(in: 0..<8, using: &random)
            var flipped = changeset
            flipped[position] ^= UInt8(1 << bit)
            damaged.append(("bit \(bit) of byte \(position) flipped", flipped))
        }
        var outcomes: [String: Int] = [:]
        for (what, bytes) in damaged {
            let copy = "\(temporary.path)/copy.sqlite"
            try? FileManager.default.removeItem(atPath: copy) // absent on the first round
            try FileManager.default.copyItem(atPath: pristine, toPath: copy)
            let file = "\(temporary.path)/damaged.changeset"
            try bytes.write(to: URL(fileURLWithPath: file))
            let result = try CommandRunner.ingest(["snapshots", "apply", file, "--to", copy, "--digest", ChangesetDigest(of: bytes).hex,
                                                   "--manifest", directory.manifestPath(versions[1]),
                                                   // A few flips hang libsqlite3's iterator (the 14 minutes): a short bound keeps CI short.
                                                   "--check-timeout", "5"])
            switch result.status {
            case 65:
                #expect(try FileDigest.sha256(path: copy) == before, "seed \(seed), \(what): refused, but the copy changed")
                #expect(result.stderr.hasPrefix("ingest: \(file) "), "seed \(seed), \(what): \(result.stderr)")
                outcomes["refused", default: 0] += 1
            case 0:
                // Applied: only a damage that changes nothing the copy ends with may pass.
                let difference = try SnapshotContent.difference(old: copy, new: directory.snapshotPath(versions[1]), ignoring: [])
                #expect(difference == nil, "seed \(seed), \(what): exit 0 with wrong data: \(difference ?? "")")
                outcomes["applied", default: 0] += 1
            default:
                Issue.record("seed \(seed), \(what): exit \(result.status): \(result.stderr)")
            }
        }
        #expect(outcomes["refused", default: 0] > 0)
        print("seed \(seed): \(damaged.count) damaged changesets, \(outcomes)")
    }

    @Test func aPublishedVersionOrAFileInASnapshotsFolderIsRefused() throws {
        let temporary = TemporaryDirectory()
        let (directory, versions) = try SnapshotChangesetTests.twoNights(temporary, seed: 9)
        let file = directory.changesetPath(versions[1])
        let digest = ChangesetDigest(of: try Data(contentsOf: URL(fileURLWithPath: file))).hex
        let linked = "\(temporary.path)/linked.sqlite"
        #expect(link(directory.snapshotPath(versions[0]), linked) == 0)
        for (target, why) in [(directory.currentPath, "is a symbolic link (to a published version?)"),
                              (directory.snapshotPath(versions[0]), "has 2 names (hard links): one may be a published version"),
                              (linked, "has 2 names (hard links): one may be a published version")] {
            let before = try FileDigest.sha256(path: target)
            let result = try CommandRunner.ingest(["snapshots", "apply", file, "--to", target, "--digest", digest])
            #expect(result.status == 64, "\(target)")
            #expect(result.stderr == "ingest: --to \(target) \(why); apply changes a copy of your own (cp the version first)\n")
            #expect(try FileDigest.sha256(path: target) == before)
        }
        unlink(linked)
        let result = try CommandRunner.ingest(["snapshots", "apply", file, "--to", directory.snapshotPath(versions[0]), "--digest", digest])
        #expect(result.status == 64)
        #expect(result.stderr.contains("lies in a snapshots folder"))
    }
}
