/// The release both programs report (`ingest --version`, `ingest-serve
/// --version`) and every manifest records, beside the build's commit.
public enum IngestVersion {
    public static let current = "0.1.0"

    /// A build's version, as `--version`, manifests and the Debian package
    /// say it (one string, a valid Debian version that sorts by commit
    /// date): `0.1.0+git202611270820.170c5c2abcde`, `.dirty` for a build with
    /// uncommitted changes, the release alone outside a git checkout.
    public static func build(commit: String, date: String) -> String {
        guard commit != "unknown" else { return current }
        return "\(current)+git\(date).\(commit.replacingOccurrences(of: "-", with: "."))"
    }
}
