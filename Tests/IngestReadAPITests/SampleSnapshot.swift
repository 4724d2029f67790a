import Foundation
import IngestReadAPI
import IngestSnapshot
import IngestTestSupport
import Testing

/// The repository's sample feeds (`feeds/`, what `make run` ingests),
/// imported once into a snapshot of their own and opened for reading.
final class SampleSnapshot: @unchecked Sendable {
    static let shared = SampleSnapshot()

    let temporary = TemporaryDirectory()
    let directory: SnapshotDirectory
    let open: Result<OpenSnapshot, any Error>

    private init() {
        let directory = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        self.directory = directory
        open = Result {
            let run = try CommandRunner.ingest(["--feeds", RepositoryFiles.feedsDirectory, "--mappings", RepositoryFiles.mappingsDirectory,
                                                "--snapshots", directory.path])
            guard run.status == 0, let version = directory.currentVersion() else {
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the sample import failed: \(run.stderr)"])
            }
            return try OpenSnapshot(path: directory.snapshotPath(version), version: version)
        }
    }

    static func snapshot() throws -> OpenSnapshot { try shared.open.get() }

    /// The moment the sample's answers are about, so `on` and `oh` are fixed:
    /// Wednesday 22 May 2024, 12:00 in Tallinn.
    static let wednesdayNoon = ReadContext(now: Date(timeIntervalSince1970: 1_716_368_400))

    /// The JSON answer to `parameters`, parsed.
    static func answer(_ parameters: [String: String]) throws -> Any {
        try JSONSerialization.jsonObject(with: try ReadAPI.answer(try ReadQuery(parameters), from: try snapshot(), context: wednesdayNoon))
    }

    /// The answer's lists of flat entries (`items`, `atc`, …), without the
    /// paging keys (`total`, `next`), which `paging(_:)` gives.
    static func lists(_ parameters: [String: String]) throws -> [String: [[String: String]]]? {
        (try answer(parameters) as? [String: Any])?.compactMapValues { $0 as? [[String: String]] }
    }

    /// The answer's grouped lists (`regions`, `item_pharmacies`), without the paging keys.
    static func groups(_ parameters: [String: String]) throws -> [String: [[String: Any]]]? {
        (try answer(parameters) as? [String: Any])?.compactMapValues { $0 as? [[String: Any]] }
    }

    /// `total` and `next` of a list answer (nil where absent).
    static func paging(_ parameters: [String: String]) throws -> (total: String?, next: String?) {
        let answer = try answer(parameters) as? [String: Any]
        return (answer?["total"] as? String, answer?["next"] as? String)
    }
}
