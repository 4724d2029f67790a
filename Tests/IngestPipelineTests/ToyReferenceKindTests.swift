import Foundation
import IngestAdapters
import IngestCore
import IngestReadAPI
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// A reference kind that exists only in this file, plugged into a run as
/// a stock format is (`ImportRun(options:catalog:references:)`): the proof
/// that a new kind with a new table lives through the nights around its
/// arrival (docs/ADDING_A_FORMAT.md, "What a new table must have").
///
/// The toy format: a first line `#holidays`, then `YYYY-MM-DD|name` per line.
struct ToyHoliday: LocatedRecord {
    var date: String
    var name: String
    var line: Int
    var recordKey: String { date }
}

extension FeedKind {
    static let toyHolidays = FeedKind(rawValue: "toy_holidays")
}

struct ToyHolidayAdapter: FeedAdapter {
    let name = "toy-holidays"
    let summary = "Toy holiday list (tests only); recognised by its first line #holidays"
    let kind = FeedKind.toyHolidays

    func recognises(_ file: FeedFile) -> Bool { file.firstLine.starts(with: Array("#holidays".utf8)) }

    func parse(_ file: FeedFile, into output: inout FeedOutput<ToyHoliday>) -> NoHeader? {
        do {
            try LineReader(file: file).forEachLine { line, number in
                guard number > 1, case .text(let bytes) = line, !bytes.isEmpty else { return }
                let fields = String(decoding: bytes, as: UTF8.self).split(separator: "|").map(String.init)
                guard fields.count == 2 else {
                    return output.reject(line: number, key: fields.first ?? "", reason: .badFieldCount, message: "\(fields.count) fields, expected 2", field: "line")
                }
                output.accept(ToyHoliday(date: fields[0], name: fields[1], line: number))
            }
        } catch {
            output.failure = FeedFailure(reason: .unreadable, message: "\(error)")
        }
        return nil
    }
}

struct ToyHolidaySet: ReferenceSet {
    static let adapter = ToyHolidayAdapter()
    static let tables = [SnapshotTable(name: "toy_holidays", create: "CREATE TABLE toy_holidays(date TEXT PRIMARY KEY, name TEXT) WITHOUT ROWID",
                                       about: TableAbout("Holidays", "A toy kind of the tests.", columns: [("date", "Date"), ("name", "Name")],
                                                         label: "name", sort: "date"))]
    private(set) var holidays: [(date: String, name: String)] = []
    var isEmpty: Bool { holidays.isEmpty }

    mutating func add(_ records: [ToyHoliday], from file: FeedFile, loaded: ReferenceData, report: inout RunReport) throws {
        holidays += records.map { ($0.date, $0.name) }
    }

    mutating func keep(from previous: PreviousSnapshot) throws -> Bool {
        let statement = try previous.database.prepare("SELECT date, name FROM toy_holidays ORDER BY date")
        while try statement.step() { holidays.append((statement.string(0) ?? "", statement.string(1) ?? "")) }
        return !holidays.isEmpty
    }

    func write(to writer: SnapshotWriter) throws {
        let insert = try writer.database.cachedStatement("INSERT INTO toy_holidays(date, name) VALUES (?, ?)")
        for holiday in holidays { try insert.run(.text(holiday.date), .text(holiday.name)) }
    }
}

@Suite struct ToyReferenceKindTests {
    /// Night 1 without the kind; night 2 with it but no file (its table
    /// starts empty, a warning says why, and the two files are of different
    /// schemas under one version number: no changeset); night 3 brings a
    /// file; night 4 none, and the kind is carried from night 3.
    @Test func aNewKindArrivesOverNightsAndIsCarried() async throws {
        let history = AcrossNightsTests.History()
        let feeds = try history.sampleFeeds("feeds")
        let withToy = BuiltInFormats.references + [ToyHolidaySet.self]
        let first = try #require(try history.run(feeds, asOf: "2024-05-20T06:00:00+03:00").publishedVersion)

        try history.sendNextDaysExport(feeds, exported: "20110520T2305")
        let second = try history.run(feeds, asOf: "2024-05-21T06:00:00+03:00", references: withToy)
        let version = try #require(second.publishedVersion, "the new table makes the night new")
        #expect(second.warnings.contains { $0.code == .tableNotInCurrent && $0.key == "toy_holidays"
            && $0.message == "no toy_holidays file tonight, and current (\(first), schema \(SnapshotSchema.version)) has no table toy_holidays to keep it from: it starts empty" })
        #expect(try history.current().int("SELECT count(*) FROM toy_holidays") == 0)
        do {
            _ = try SnapshotChangeset.make(from: history.directory.snapshotPath(first), to: history.directory.snapshotPath(version))
            Issue.record("a changeset joined two schemas")
        } catch let mismatch as SnapshotChangeset.SchemaMismatch {
            #expect(mismatch.tables == "tables only in the newer: toy_holidays")
        }
        let served = try OpenSnapshot(path: history.directory.snapshotPath(version), version: version)
        guard case .gone = try await ChangesetCache(directory: history.directory, work: InlineWork()).answer(since: first, current: served) else {
            Issue.record("the read API served a changeset across schemas")
            return
        }

        try Data("#holidays\n2024-06-23|Võidupüha\n2024-06-24|Jaanipäev\n".utf8).write(to: URL(fileURLWithPath: "\(feeds)/holidays.txt"))
        try history.sendNextDaysExport(feeds, exported: "20110521T2305")
        let third = try history.run(feeds, asOf: "2024-05-22T06:00:00+03:00", references: withToy)
        #expect(third.feeds.first { $0.file == "holidays.txt" }?.outcome == .loaded)
        #expect(try history.current().rows("SELECT date, name FROM toy_holidays ORDER BY date") == [["2024-06-23", "Võidupüha"], ["2024-06-24", "Jaanipäev"]])

        try FileManager.default.removeItem(atPath: "\(feeds)/holidays.txt")
        try history.sendNextDaysExport(feeds, exported: "20110522T2305")
        let fourth = try history.run(feeds, asOf: "2024-05-23T06:00:00+03:00", references: withToy)
        #expect(fourth.carriedOver.contains { $0.kind == .reference && $0.key == "toy_holidays" })
        #expect(try history.current().int("SELECT count(*) FROM toy_holidays") == 2)
    }
}
