import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

/// FEEDS.md §12, fixed-width files: each field a 1-based inclusive range of
/// characters of the decoded line, values trimmed, a range past a short
/// line's end empty, `header = N` skipping N lines, the same encodings,
/// filters and rules as CSV.
@Suite struct FixedWidthFeedTests {
    static func mapping(encoding: String = "UTF-8", extra: String = "") -> String {
        """
        [match]
        filename = "mainframe_*.txt"
        [format]
        type = "fixed"
        header = 2
        encoding = "\(encoding)"
        decimal_separator = ","
        date_format = "yyyyMMdd"
        missing_values = ["-"]
        [prices]
        currency = "EUR"
        includes_vat = true
        [pharmacy]
        id_from_filename = "mainframe_([0-9]+)_"
        [export]
        date_from_filename = "_([0-9]{8})\\\\.txt$"
        [columns]
        aptcode = [1, 8]
        name = [[9, 28], [29, 36]]
        price = [37, 44]
        quantity = [45, 49]
        \(extra)
        """
    }

    //      1       9                   29      37      45
    static let file = """
        REPORT STOCK 2026-06-11
        APTCODE NAME                FORM       PRICE  QTY
        1001    Arnica Salbe        Tube       16,55    3
        1002    Calendula Essenz    Flasche        -    1
          1003  Schlehen Elixier                4,20    0
        1004    Söderblom Öl        Tube       12,00   10
        1005    Kurz

        """

    private func parse(_ mapping: String, bytes: [UInt8] = Array(file.utf8), name: String = "mainframe_4001_20260611.txt") throws -> (FeedOutput<StockOffer>, StockFeedHeader?) {
        let directory = TemporaryDirectory()
        let adapter = try #require(MappedCSVStockAdapter(mapping: try MappingLoader.load(path: directory.write("mainframe.mapping.toml", text: mapping))))
        return try AdapterHarness.parse(adapter, bytes: bytes, name: name, expectRecognised: true)
    }

    /// Ranges in characters (not bytes: `Söderblom Öl` keeps its columns),
    /// trimmed; a short line's missing ranges are empty; the first two lines skipped.
    @Test func rangesOfCharactersTrimmedAndShortLinesEmpty() throws {
        let (output, header) = try parse(Self.mapping())
        #expect(header?.pharmacyID == "4001")
        #expect(output.failure == nil)
        #expect(output.records.map(\.aptcode) == ["1001", "1003", "1004"])
        #expect(output.records.map(\.name) == ["Arnica Salbe Tube", "Schlehen Elixier", "Söderblom Öl Tube"])
        #expect(output.records.map(\.priceCents) == [1655, 420, 1200])
        #expect(output.records.map(\.quantity) == [3, 0, 10])
        #expect(output.records.map(\.line) == [3, 5, 6])
        #expect(output.rejects.map { "\($0.line) \($0.key) \($0.reason.rawValue) \($0.field ?? "")" } == ["4 1002 missing_price price", "7 1005 missing_price price"])
        #expect(output.read == 5)
    }

    /// A range counts Unicode scalars whatever their UTF-8 length (1 to 4
    /// bytes; a combining accent is a scalar of its own), trims, and reads
    /// as empty past the line's end.
    @Test func aRangeCountsScalarsNotBytes() throws {
        let line = FixedWidthLine("Ab\u{0308}ö€𝄞  x  ")
        #expect(line.count == 11)
        func cut(_ first: Int, _ last: Int) throws -> String { try #require(FixedWidthRange(first: first, last: last)).text(in: line) }
        #expect(try cut(1, 1) == "A")
        #expect(try cut(2, 3) == "b\u{0308}")
        #expect(try cut(4, 6) == "ö€𝄞")
        #expect(try cut(6, 6) == "𝄞")
        #expect(try cut(5, 9) == "€𝄞  x", "trimmed")
        #expect(try cut(7, 8) == "", "only spaces")
        #expect(try cut(9, 40) == "x", "cut at the line's end")
        #expect(try cut(11, 11) == "")
        #expect(try cut(12, 20) == "", "past the end")
        #expect(try #require(FixedWidthRange(first: 1, last: 1)).text(in: FixedWidthLine("")) == "")
    }

    /// The same encodings as CSV: a windows-1252 file's `ö` is one character, as its one byte.
    @Test func encodingsAsForCSV() throws {
        let latin1 = Array(Self.file.data(using: .windowsCP1252)!)
        let (output, _) = try parse(Self.mapping(encoding: "windows-1252"), bytes: latin1)
        #expect(output.records.map(\.name) == ["Arnica Salbe Tube", "Schlehen Elixier", "Söderblom Öl Tube"])
        #expect(output.records.map(\.priceCents) == [1655, 420, 1200])
    }

    /// Filters name a range; a line whose bytes are not UTF-8 is a reject with its line.
    @Test func filtersAndUndecodableLines() throws {
        let (filtered, _) = try parse(Self.mapping(extra: "[filter]\nskip_when = [{ column = [29, 36], equals = \"Tube\" }]"))
        #expect(filtered.records.map(\.aptcode) == ["1003"])
        #expect(filtered.rejects.map { "\($0.line) \($0.reason.rawValue)" } == ["3 filtered", "4 missing_price", "6 filtered", "7 missing_price"])
        #expect(filtered.rejects[0].message == "skipped by the mapping's filter: 29-36 equals 'Tube'")
        var bytes = Array(Self.file.utf8)
        let at = Array(Self.file.utf8).firstRange(of: Array("Arnica".utf8))!.lowerBound + 1 // on line 3
        bytes[at] = 0xFF
        let (broken, _) = try parse(Self.mapping(), bytes: bytes)
        #expect(broken.records.map(\.aptcode) == ["1003", "1004"])
        #expect(broken.rejects.first.map { "\($0.line) \($0.reason.rawValue) \($0.field ?? "") \($0.message)" } == "3 bad_encoding line line is not UTF-8 text")
    }

    /// Mapping errors name the key.
    @Test(arguments: [
        ("aptcode = [7, 1]", "columns.aptcode"),
        ("aptcode = \"APTCODE\"", "columns.aptcode"),
        ("aptcode = [0, 7]", "columns.aptcode"),
    ])
    func badRangesAreNamed(line: String, key: String) throws {
        let directory = TemporaryDirectory()
        let text = Self.mapping().replacingOccurrences(of: "aptcode = [1, 8]", with: line)
        #expect {
            _ = try MappingLoader.load(path: directory.write("mainframe.mapping.toml", text: text))
        } throws: { ($0 as? MappingError)?.key == key }
        let noName = Self.mapping().replacingOccurrences(of: "filename = \"mainframe_*.txt\"", with: "")
        #expect { _ = try MappingLoader.load(path: directory.write("b.mapping.toml", text: noName)) } throws: { ($0 as? MappingError)?.key == "match.filename" }
        let quoted = Self.mapping().replacingOccurrences(of: "header = 2", with: "header = 2\nquote = \"'\"")
        #expect { _ = try MappingLoader.load(path: directory.write("c.mapping.toml", text: quoted)) } throws: { ($0 as? MappingError)?.key == "format.quote" }
    }
}
