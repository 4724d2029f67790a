import Foundation
import IngestAdapters
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// A stock format that exists only in this file: the proof that a format
/// plugs in through `StockFeedAdapter` and a catalogue entry alone, with no
/// change to the pipeline (docs/ADDING_A_FORMAT.md walks through the same).
///
/// The toy format: a first line `#toy <pharmacy id> <YYYYMMDDTHHMM>`, then
/// one offer per line, `aptcode|name|price in cents|quantity`.
struct ToyStockAdapter: StockFeedAdapter {
    let name = "toy"
    let summary = "Toy stock format (tests only); recognised by its first line #toy"

    func recognises(_ file: FeedFile) -> Bool { file.firstLine.starts(with: Array("#toy ".utf8)) }

    func readHeader(_ file: FeedFile) throws(FeedFailure) -> StockFeedHeader {
        let words = String(decoding: file.firstLine, as: UTF8.self).split(separator: " ").map(String.init)
        guard words.count == 3, let exported = ExportTimestamp.parseCompact(words[2]) else {
            throw FeedFailure(reason: .badHeader, message: "first line is not '#toy <pharmacy> <YYYYMMDDTHHMM>'", line: 1)
        }
        return StockFeedHeader(pharmacyID: words[1], pharmacyName: nil, exportedAt: exported, format: "toy")
    }

    func parse(_ file: FeedFile, into output: inout FeedOutput<StockOffer>) -> StockFeedHeader? {
        let header: StockFeedHeader
        do { header = try readHeader(file) } catch {
            output.failure = error
            return nil
        }
        do {
            try LineReader(file: file).forEachLine { line, number in
                guard number > 1, case .text(let bytes) = line, !bytes.isEmpty else { return }
                let fields = String(decoding: bytes, as: UTF8.self).split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                let key = fields.first ?? ""
                guard fields.count == 4 else {
                    return output.reject(line: number, key: key, reason: .badFieldCount, message: "\(fields.count) fields, expected 4", field: "line")
                }
                guard let cents = Int64(fields[2]), cents >= 0 else {
                    return output.reject(line: number, key: key, reason: .badPrice, message: "price '\(fields[2])' is not whole cents", field: "price")
                }
                guard output.isFirstOccurrence(key) else {
                    return output.reject(line: number, key: key, reason: .duplicateKey, message: "\(key) appears earlier", field: "aptcode")
                }
                output.accept(StockOffer(aptcode: key, name: fields[1], priceCents: cents, quantity: Int64(fields[3]), line: number))
            }
        } catch let failure as FeedFailure {
            output.failure = failure
        } catch {
            output.failure = FeedFailure(reason: .unreadable, message: "\(error)")
        }
        return header
    }
}

@Suite struct ToyFormatTests {
    static let feed = "#toy 777 20240101T1200\nTOY1|Toy pill|1234|5\nTOY2|Toy syrup|12,5|1\nTOY3|Toy drops|99|0\n"

    @Test func itParsesBytesInMemoryThroughTheProtocol() {
        let file = FeedFile(name: "toy.txt", bytes: Array(Self.feed.utf8))
        let adapter = ToyStockAdapter()
        #expect(adapter.recognises(file))
        let output = adapter.parse(file)
        #expect(output.records.map(\.aptcode) == ["TOY1", "TOY3"])
        #expect(output.rejects.map { "\($0.line) \($0.reason) \($0.field ?? "")" } == ["3 bad_price price"])
        #expect(output.read == output.accepted + output.rejected)
    }

    @Test func aTestCatalogueEntryIsAllARunNeedsToLoadIt() throws {
        let temporary = TemporaryDirectory()
        // Enough good lines that one bad one stays under the 5 % reject-rate gate.
        let more = (10...40).map { "TOY\($0)|Toy \($0)|\($0 * 100)|1\n" }.joined()
        temporary.write("feeds/toy_777.txt", text: Self.feed + more)
        let options = ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/snapshots",
                                    mappingsDirectory: RepositoryFiles.mappingsDirectory, parseThreads: 1,
                                    asOf: Date(timeIntervalSince1970: 1_704_110_400))
        // The built-in catalogue does not know the toy format: the file is unrecognised.
        let without = try ImportRun(options: options).run()
        #expect(without.feeds.map { "\($0.file) \($0.outcome)" } == ["toy_777.txt unrecognised"])

        let catalog = AdapterCatalog(BuiltInFormats.adapters + [ToyStockAdapter()])
        let report = try ImportRun(options: options, catalog: catalog).run()
        let feed = try #require(report.feeds.first { $0.file == "toy_777.txt" })
        #expect("\(feed.adapter ?? "") \(feed.kind ?? "") \(feed.outcome)" == "toy stock loaded")
        #expect(report.rejects.map { "\($0.file):\($0.line) \($0.reason) \($0.field ?? "")" } == ["toy_777.txt:3 bad_price price"])
        let query = try SnapshotQuery(try #require(report.snapshotPath))
        #expect(query.value("SELECT count(*) FROM offers WHERE pharmacy_id = '777'") == "33")
        #expect(query.rows("SELECT pharmacy_id, aptcode, price_cents, quantity FROM offers WHERE aptcode IN ('TOY1', 'TOY2', 'TOY3', 'TOY40') ORDER BY aptcode")
            == [["777", "TOY1", "1234", "5"], ["777", "TOY3", "99", "0"], ["777", "TOY40", "4000", "1"]])
        #expect(query.value("SELECT name FROM items WHERE aptcode = 'TOY1'") == "Toy pill")
    }
}
