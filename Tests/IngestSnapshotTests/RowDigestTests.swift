import Foundation
import IngestTestSupport
import Testing
@testable import IngestSnapshot

/// The two order-free row digests: the publish check's own
/// (`ingest_check_digest`, `TableDigest`) tells rows apart that differ in
/// any way a damaged file could, and agrees with itself across SQL and
/// Swift; the manifest's content digest (`ingest_digest`) is still FNV-1a
/// as docs/SNAPSHOTS.md gives it to clients.
@Suite struct RowDigestTests {
    enum Value {
        case text(String), int(Int64), null
    }

    private func bound(_ value: Value) -> SQLiteStatement.Value {
        switch value {
        case .text(let text): return .text(text)
        case .int(let number): return .int(number)
        case .null: return .int(nil)
        }
    }

    /// `function` over the one row `values`, bound (a text may hold a zero byte), as SQL computes it.
    private func sql(_ function: String, _ values: [Value], in database: SQLiteDatabase) throws -> String {
        let statement = try database.prepare("SELECT \(function)(\(values.map { _ in "?" }.joined(separator: ", ")))")
        try statement.bind(values.map(bound))
        #expect(try statement.step())
        return statement.string(0) ?? ""
    }

    private func swift(_ values: [Value]) -> String {
        var row = TableDigest.Row()
        for value in values {
            switch value {
            case .text(let text): row.text(text)
            case .int(let number): row.int(number)
            case .null: row.int(nil)
            }
        }
        var digest = TableDigest()
        digest.add(row)
        return digest.text
    }

    /// Rows that share their bytes but not their values: split elsewhere,
    /// typed otherwise, padded with zero bytes, or differing past the
    /// first eight bytes of a text, one bit apart.
    static let rows: [[Value]] = [
        [.text("ab"), .text("c")], [.text("a"), .text("bc")], [.text("abc")], [.text("abc"), .text("")],
        [.text("abcdefgh")], [.text("abcdefgh\u{0}")], [.text("abcdefg")], [.text("abcdefghi")], [.text("abcdefghj")],
        [.text("2026-01-01T00:00:00+02:00")], [.text("2026-01-01T00:00:00+03:00")],
        [.int(0)], [.int(1)], [.int(5)], [.int(4)], [.null], [.text("")], [.int(-1)], [.int(Int64.max)], [.int(Int64.min)],
        [.int(1), .int(2)], [.int(2), .int(1)], [.null, .int(1)], [.int(1), .null],
        [.text("10023"), .text("MM0003633"), .int(3975)], [.text("10023"), .text("MM0003633"), .int(3976)],
    ]

    @Test func theCheckDigestTellsEveryRowApartAndSQLAgreesWithSwift() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        var seen: [String: Int] = [:]
        for (position, row) in Self.rows.enumerated() {
            let text = try sql("ingest_check_digest", row, in: database)
            #expect(text == swift(row), "row \(position)")
            #expect(text.hasPrefix("1:"))
            if let earlier = seen[text] { Issue.record("rows \(earlier) and \(position) share the digest \(text)") }
            seen[text] = position
        }
    }

    @Test func theCheckDigestIsOrderFreeAndTakesARowOutAgain() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE TABLE t(position INTEGER, a, b, c)")
        for (position, row) in Self.rows.enumerated() {
            let padded = row + Array(repeating: Value.null, count: 3 - row.count)
            let insert = try database.prepare("INSERT INTO t VALUES (?, ?, ?, ?)")
            try insert.bind([.int(Int64(position))] + padded.map(bound))
            try insert.run()
        }
        let forwards = try database.strings("SELECT ingest_check_digest(a, b, c) FROM (SELECT * FROM t ORDER BY position)").first
        let backwards = try database.strings("SELECT ingest_check_digest(a, b, c) FROM (SELECT * FROM t ORDER BY position DESC)").first
        #expect(forwards == backwards)
        #expect(forwards?.hasPrefix("\(Self.rows.count):") == true)

        var digest = TableDigest()
        var extra = TableDigest.Row()
        extra.text("taken out again")
        digest.add(extra)
        var kept = TableDigest.Row()
        kept.int(7)
        digest.add(kept)
        digest.remove(extra)
        var only = TableDigest()
        only.add(kept)
        #expect(digest == only)
    }

    /// The content digest of whole tables: every count of rows from none to
    /// eleven, long texts among short rows, equals the rows' FNV-1a combined
    /// one by one, as a client combines them.
    @Test func theContentDigestOfATableIsItsRowsCombinedWhateverTheirCount() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE TABLE t(position INTEGER, a, b, c)")
        let long = String(repeating: "Ä", count: 300) // 600 bytes
        let pool: [[Value]] = Self.rows.map { row in row + Array(repeating: Value.null, count: 3 - row.count) }
            + [[.text(long), .int(1), .null], [.text("x"), .text(long + long), .int(-7)]]
        for count in 0...11 {
            try database.execute("DELETE FROM t")
            var expected = TableDigest.Combined()
            for position in 0..<count {
                let row = pool[(position * 7 + count) % pool.count]
                let insert = try database.prepare("INSERT INTO t VALUES (?, ?, ?, ?)")
                try insert.bind([.int(Int64(position))] + row.map(bound))
                try insert.run()
                expected.add(fnv1aRow([.int(Int64(position))] + row))
            }
            let found = try database.strings("SELECT ingest_digest(position, a, b, c) FROM t").first
            #expect(found == expected.text, "\(count) rows")
        }
    }

    /// FNV-1a 64 over each value: its type tag, its bytes (a number as 8
    /// little-endian bytes), then its length; rows combined as
    /// `TableDigest` does. Written out here from docs/SNAPSHOTS.md's
    /// description, not from the shim, so a change to the clients' digest fails.
    private func fnv1aRow(_ values: [Value]) -> UInt64 {
        let prime: UInt64 = 0x100000001B3
        var hash: UInt64 = 0xCBF29CE484222325
        func take(_ tag: UInt8, _ bytes: [UInt8]) {
            hash = (hash ^ UInt64(tag)) &* prime
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* prime }
            hash = (hash ^ UInt64(UInt32(bytes.count))) &* prime
        }
        for value in values {
            switch value {
            case .text(let text): take(3, Array(text.utf8))
            case .int(let number): take(1, withUnsafeBytes(of: number.littleEndian) { Array($0) })
            case .null: take(5, [])
            }
        }
        return hash
    }

    private func fnv1a(_ values: [Value]) -> String {
        var one = TableDigest.Combined()
        one.add(fnv1aRow(values))
        return one.text
    }

    @Test func theContentDigestIsStillFNV1a() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        for row in Self.rows {
            #expect(try sql("ingest_digest", row, in: database) == fnv1a(row))
        }
    }
}

extension TableDigest {
    /// Row hashes combined as both aggregates combine them (sum, and xor of
    /// a multiple), written as they write it: the test's own arithmetic.
    struct Combined {
        private var sum: UInt64 = 0
        private var mix: UInt64 = 0
        private var count = 0

        mutating func add(_ row: UInt64) {
            sum = sum &+ row
            mix ^= row &* 0x9E3779B97F4A7C15
            count += 1
        }

        var text: String {
            let value = sum ^ ((mix << 1) | (mix >> 63))
            let hex = String(value, radix: 16)
            return "\(count):" + String(repeating: "0", count: 16 - hex.count) + hex
        }
    }
    /// The publish check's table scan in one aggregate gives what the
    /// separate aggregates give: each check digest over its columns in its
    /// order (an index's expression hashed as `''`), then the content digest
    /// of every column; every type, NULL and zero bytes among the rows.
    @Test func theTableScanInOneAggregateIsTheSeparateAggregates() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE TABLE t(a INTEGER, b TEXT, c REAL, d BLOB)")
        let together = "SELECT ingest_table_digests('1,0;2,3,0;x,1;3', a, b, c, d) FROM t"
        let apart = """
            SELECT ingest_check_digest(b, a) || ' ' || ingest_check_digest(c, d, a) || ' ' || ingest_check_digest('', b) || ' '
                || ingest_check_digest(d) || ' ' || ingest_digest(a, b, c, d) FROM t
            """
        #expect(try database.strings("SELECT typeof(ingest_table_digests('1,0', a, b, c, d)) FROM t") == ["null"],
                "no row: NULL, which the check reads as every digest empty")
        let insert = try database.prepare("INSERT INTO t VALUES (?, ?, ?, CAST(?4 AS BLOB))")
        for row in 0..<40 {
            try insert.run(.int(row % 7 == 0 ? nil : Int64(row * 1_000_003)), .text(row % 5 == 0 ? "" : "rivi \(row)\u{0}ja enemmän kuin kahdeksan tavua"),
                           .real(row % 3 == 0 ? nil : Double(row) / 8), .text(row % 4 == 0 ? nil : String(repeating: "\u{1}b", count: row % 11)))
            let found = try #require(try database.strings(together).first)
            #expect(found == (try database.strings(apart).first), "after \(row + 1) rows")
            #expect(found.split(separator: " ").count == 5)
            #expect(found.hasPrefix("\(row + 1):"))
        }
        #expect(try database.strings("SELECT ingest_table_digests('', a, b, c, d) FROM t") == (try database.strings("SELECT ingest_digest(a, b, c, d) FROM t")),
                "no check digest: the content digest alone")
        for spec in ["4", "0,,1", "a", "0;", "0,1;x2"] {
            #expect(throws: SQLiteError.self, "spec \(spec)") { try database.strings("SELECT ingest_table_digests('\(spec)', a, b, c, d) FROM t") }
        }
    }
}
