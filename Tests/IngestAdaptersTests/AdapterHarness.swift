import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

/// Writes bytes to a temporary feed file and runs a stock adapter over it,
/// checking `read = accepted + rejected` on every parse a test makes.
enum AdapterHarness {
    static func parse(_ adapter: some StockFeedAdapter, bytes: [UInt8], name: String,
                      expectRecognised: Bool = false) throws -> (FeedOutput<StockOffer>, StockFeedHeader?) {
        let directory = TemporaryDirectory()
        let file = try FeedFile.open(path: directory.write(name, bytes: bytes), name: name)
        if expectRecognised { #expect(adapter.recognises(file), "\(adapter.name) does not claim \(name)") }
        var output = FeedOutput<StockOffer>(file: name)
        let header = adapter.parse(file, into: &output)
        #expect(output.read == output.accepted + output.rejected, "read = accepted + rejected")
        return (output, header)
    }
}
