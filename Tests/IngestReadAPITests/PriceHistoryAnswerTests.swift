import Foundation
import IngestCore
import IngestPipeline
import IngestReadAPI
import IngestSnapshot
import IngestTestSupport
import Testing

/// `?q=h` (READ_API.md, Version 2) over two nights of the sample feeds:
/// SELMA APTEEK's DOXY-M goes from 2.37 € to 2.45 € on the second.
@Suite struct PriceHistoryAnswerTests {
    static func twoNights(_ temporary: TemporaryDirectory) throws -> OpenSnapshot {
        let feeds = temporary.subdirectory("feeds")
        for file in try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.feedsDirectory) {
            try FileManager.default.copyItem(atPath: RepositoryFiles.feed(file), toPath: "\(feeds)/\(file)")
        }
        let snapshots = "\(temporary.path)/snapshots"
        func night(_ asOf: String) throws -> String {
            let time = try #require(ExportTimestamp.parseISO8601(asOf))
            var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots, mappingsDirectory: RepositoryFiles.mappingsDirectory,
                                        parseThreads: 2, asOf: Date(timeIntervalSince1970: TimeInterval(time.epochSeconds)))
            // The sample exports are from 2010–2013 and the nights run in 2024: a window that reaches them.
            options.historyDays = 6000
            return try #require(try ImportRun(options: options).run().publishedVersion)
        }
        _ = try night("2024-05-20T06:00:00+03:00")
        // The next night SELMA APTEEK (RAX 3.1) sends a newer export with one price changed.
        let old = "\(feeds)/rax_31937_201105192305.txt"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: old))
        try FileManager.default.removeItem(atPath: old)
        for (from, to) in [(";20110519T2305;", ";20110520T2305;"), (";2,37;", ";2,45;")] {
            let range = try #require(bytes.range(of: Data(from.utf8)))
            bytes.replaceSubrange(range, with: Data(to.utf8))
        }
        try bytes.write(to: URL(fileURLWithPath: "\(feeds)/rax_31937_201105202305.txt"))
        let version = try night("2024-05-21T06:00:00+03:00")
        return try OpenSnapshot(path: "\(snapshots)/\(version).sqlite", version: version)
    }

    static func body(_ parameters: [String: String], _ snapshot: OpenSnapshot) throws -> String {
        String(decoding: try ReadAPI.answer(try ReadQuery(parameters), from: snapshot), as: UTF8.self)
    }

    @Test func eachChangeNewestFirstAndNothingForTheUnknown() throws {
        let temporary = TemporaryDirectory()
        let snapshot = try Self.twoNights(temporary)
        let doxy = try Self.body(["q": "h", "aptcode": "MM0007145", "client_id": "31937"], snapshot)
        #expect(doxy == #"{"price_history":[{"d":"20.05.2011","p":"2.45€"},{"d":"19.05.2011","p":"2.37€"}]}"#, "\(doxy)")
        // Codes in any letter case; a price that did not change is one row.
        #expect(try Self.body(["q": "h", "aptcode": "mm0034978", "client_id": "31937"], snapshot)
                == #"{"price_history":[{"d":"19.05.2011","p":"3.79€"}]}"#)
        // 5060 was carried over: its history is yesterday's.
        #expect(try Self.body(["q": "h", "aptcode": "MM0007145", "client_id": "5060"], snapshot)
                == #"{"price_history":[{"d":"30.12.2010","p":"2.37€"}]}"#)
        for unknown in [["aptcode": "NOPE", "client_id": "31937"], ["aptcode": "MM0007145", "client_id": "99999"]] {
            #expect(try Self.body(unknown.merging(["q": "h"]) { $1 }, snapshot) == #"{"price_history":[]}"#)
        }
        #expect(throws: ReadQuery.Invalid(reason: "q=h needs the parameter client_id")) { try ReadQuery(["q": "h", "aptcode": "MM0007145"]) }
    }
}
