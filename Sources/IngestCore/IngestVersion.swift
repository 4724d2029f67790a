/// The release both programs report (`ingest --version`, `ingest-serve
/// --version`) and every manifest records, beside the build's commit.
public enum IngestVersion {
    public static let current = "0.1.0"
}
