import Foundation

/// Paths of files committed in this repository (`feeds/`, `mappings/`), so
/// tests read the same samples `make run` does.
public enum RepositoryFiles {
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    public static func feed(_ name: String) -> String { "\(root)/feeds/\(name)" }
    public static var feedsDirectory: String { "\(root)/feeds" }
    public static var mappingsDirectory: String { "\(root)/mappings" }

    /// The release or debug `ingest` binary built beside the tests.
    public static var ingestBinary: String { binary("ingest") }

    /// The read API's binary, `ingest-serve`, built beside the tests.
    public static var serveBinary: String { binary("ingest-serve") }

    private static func binary(_ name: String) -> String {
        let testBundle = Bundle.main.bundleURL
        var candidates = [testBundle.deletingLastPathComponent().appendingPathComponent(name).path]
        for configuration in ["debug", "release"] {
            candidates.append("\(root)/.build/\(configuration)/\(name)")
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }
}
