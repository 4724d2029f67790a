import Foundation
import IngestAdapters
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// A feed's digest comes from its parse's one pass only when that pass was
/// the whole file; otherwise there is none, and the file is read again.
@Suite struct OnePassDigestTests {
    private func file(in temporary: TemporaryDirectory, size: Int) throws -> (FeedFile, String) {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let path = temporary.write("feed.bin", bytes: bytes)
        return (try FeedFile.open(path: path, name: "feed.bin"), try FileDigest.sha256(path: path))
    }

    /// Reads `stream` to its end in pieces of `chunk` bytes.
    private func drain(_ stream: FeedByteStream, chunk: Int) throws {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 8)
        defer { buffer.deallocate() }
        while try stream.read(into: buffer, count: chunk) > 0 {}
    }

    @Test(arguments: [1, 4096, 1 << 20])
    func oneWholePassGivesTheFilesDigest(chunk: Int) throws {
        let temporary = TemporaryDirectory()
        let (file, expected) = try file(in: temporary, size: 300_001)
        let digest = OnePassDigest()
        try drain(try file.observed(by: digest).openStream(), chunk: chunk)
        #expect(digest.value(size: file.size) == expected)
    }

    @Test func aPassThatStopsEarlyOrASecondStreamGivesNone() throws {
        let temporary = TemporaryDirectory()
        let (file, _) = try file(in: temporary, size: 10_000)
        let early = OnePassDigest()
        let stream = try file.observed(by: early).openStream()
        var byte: UInt8 = 0
        #expect(try stream.read(into: &byte, count: 1) == 1)
        #expect(early.value(size: file.size) == nil, "read one byte of 10,000")

        let twice = OnePassDigest()
        let observed = file.observed(by: twice)
        try drain(try observed.openStream(), chunk: 4096)
        try drain(try observed.openStream(), chunk: 4096)
        #expect(twice.value(size: file.size) == nil, "two passes over the file: which one was hashed is not the point")

        let other = OnePassDigest()
        try drain(try file.observed(by: other).openStream(), chunk: 4096)
        #expect(other.value(size: file.size + 1) == nil, "the file's size changed since it was listed")
    }

    /// A Noom feed broken near its start: the parse stops at the fault, long
    /// before the end, and the report still holds the file's digest (read again for it).
    @Test func aFeedRejectedMidFileStillGetsItsDigest() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        let items = (0..<2000).map { """
            <item aptcode="A\($0)"><name>N</name><price net="1.00" vatRate="9"/><stock>1</stock></item>
            """ }.joined(separator: "\n")
        let path = temporary.write("feeds/noom_cut.xml", text: """
            <?xml version="1.0" encoding="UTF-8"?>
            <stockExport xmlns="urn:noom:stock:2" generated="2025-11-20T23:00:00+02:00">
            <pharmacy id="5060">P</pharmacy><items currency="EUR">
            <item aptcode="BROKEN"><name>N</name></itm>
            \(items)
            """)
        let report = try ImportRun(options: ImportOptions(feedsDirectory: feeds, snapshotsDirectory: "\(temporary.path)/snapshots", dryRun: true)).run()
        let feed = try #require(report.feeds.first { $0.file == "noom_cut.xml" })
        #expect(feed.outcome == .rejected)
        #expect(feed.sha256 == (try FileDigest.sha256(path: path)))
    }
}
