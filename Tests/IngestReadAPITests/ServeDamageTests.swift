import Foundation
import IngestSnapshot
import IngestTestSupport
import Testing

/// Issue 44, item 7: what the server says when its files are damaged under
/// it. `/health` once answered 200 over a damaged `current` while every
/// query answered 500, and a changeset file gone made `q=changes` answer 500.
@Suite(.serialized) struct ServeDamageTests {
    @Test func aChangesetThatCannotBeReadIs410AndADamagedCurrentIs503() async throws {
        let temporary = TemporaryDirectory()
        try ServeEndToEndTests.generate(temporary, "n1")
        try ServeEndToEndTests.generate(temporary, "n2", ["--days-later", "1", "--price-change-rate", "0.3"])
        try ServeEndToEndTests.importNight(temporary, "n1", day: "2025-11-21")
        try ServeEndToEndTests.importNight(temporary, "n2", day: "2025-11-22")
        let directory = SnapshotDirectory(path: "\(temporary.path)/s")
        let versions = try directory.versions()
        try #require(versions.count == 2)
        let server = try ServeEndToEndTests.Server(snapshots: directory.path, log: "\(temporary.path)/serve.log")
        #expect(try await ServeEndToEndTests.get("\(server.base)/health").status == 200)

        try FileManager.default.removeItem(atPath: directory.changesetPath(versions[1]))
        let gone = try await ServeEndToEndTests.get("\(server.base)/?q=changes&since=\(versions[0])")
        #expect(gone.status == 410, "\(String(decoding: gone.body, as: UTF8.self))")
        let reason = (gone.json as? [String: String])?["error"] ?? ""
        #expect(reason.hasSuffix(": download the whole snapshot"), "\(reason)")

        // The served file cut short in place, under the server's open connections.
        #expect(truncate(directory.snapshotPath(versions[1]), 8192) == 0)
        let health = try await ServeEndToEndTests.get("\(server.base)/health")
        #expect(health.status == 503, "\(String(decoding: health.body, as: UTF8.self))")
        #expect((health.json as? [String: String])?["error"] == "the served snapshot \(versions[1]) cannot be read: see the server's log")
        #expect(try String(contentsOfFile: server.log, encoding: .utf8).contains("event=health_failed"))
    }
}
