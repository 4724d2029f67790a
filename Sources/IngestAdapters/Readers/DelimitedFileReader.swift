import CCSV
import Foundation
import IngestCore

/// RFC 4180 delimited files through libcsv: quoted fields with embedded
/// delimiters, doubled quotes and newlines; CRLF, LF or CR-only line ends;
/// an optional UTF-8 BOM; blank lines skipped. A quote inside an unquoted
/// field is data (as Python's csv and spreadsheets read it); a quoted field
/// that never closes fails the file, naming the line it opened on. Rows are
/// handed over with the line they start on.
public final class DelimitedFileReader {
    /// One row, valid only during the `onRow` call that receives it: its
    /// bytes live in the reader's buffer, which the next row overwrites.
    public struct Row {
        /// The row's field bytes back to back, quotes removed, in the file's encoding.
        public let bytes: UnsafeBufferPointer<UInt8>
        /// Where each field lies in `bytes`.
        public let ranges: [Range<Int>]
        /// 1-based line the row starts on.
        public let line: Int

        public var count: Int { ranges.count }
        public func field(_ index: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[ranges[index]]) }
        /// Every field as its own array (convenient, but allocates: not for hot paths).
        public var fields: [[UInt8]] { ranges.map { Array(bytes[$0]) } }
    }

    public let delimiter: UInt8
    public let quote: UInt8
    /// The file's charset, as iconv names it; nil for UTF-8. Anything else
    /// (and UTF-16 with a byte order mark, whatever is named) is turned into
    /// UTF-8 before libcsv sees it, so rows always hold UTF-8.
    public let encoding: String?
    /// Each line is one field, spaces and all (fixed-width files, FEEDS.md
    /// §12): the same encodings, line ends and line numbers as CSV.
    public let wholeLines: Bool
    static let firstChunkSize = 16 * 1024

    public init(delimiter: UInt8 = UInt8(ascii: ","), quote: UInt8 = UInt8(ascii: "\""), encoding: String? = nil) {
        self.delimiter = delimiter
        self.quote = quote
        self.encoding = encoding.flatMap { TextTranscoder.isUTF8($0) ? nil : $0 }
        self.wholeLines = false
    }

    /// A reader that hands over each line whole, as one field. Rows are UTF-8,
    /// where 0xFE and 0xFF never occur: they serve as delimiter and quote, so
    /// a line splits only where its bytes are not UTF-8 (the caller rejects it).
    public init(wholeLinesIn encoding: String?) {
        self.delimiter = 0xFE
        self.quote = 0xFF
        self.encoding = encoding.flatMap { TextTranscoder.isUTF8($0) ? nil : $0 }
        self.wholeLines = true
    }

    /// State the C callbacks reach through libcsv's context pointer.
    ///
    /// Field bytes go into one raw buffer that grows to the longest row and
    /// is reused: an `[UInt8]` append per field cost more than libcsv's own
    /// work on it (callgrind).
    private final class Context {
        var bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
        var capacity = 4096
        var count = 0
        var ranges: [Range<Int>] = []
        var line = 1
        var embeddedNewlines = 0
        /// The last line end was a CR: a LF right after it ends the same line.
        var afterCR = false
        var onRow: (Row) throws -> Void
        var error: Error?
        init(onRow: @escaping (Row) throws -> Void) {
            self.onRow = onRow
            ranges.reserveCapacity(64)
        }
        deinit { bytes.deallocate() }

        func append(_ data: UnsafeMutableRawPointer?, _ length: Int) {
            let start = count
            guard error == nil else { return }
            if count + length > ParseLimits.lineBytes {
                error = ParseLimits.exceeded("line_bytes", limit: ParseLimits.lineBytes, "the record on line \(line) is longer than", bytes: true, line: line)
                return
            }
            if let data, length > 0 {
                if count + length > capacity { grow(to: count + length) }
                (bytes + count).update(from: data.assumingMemoryBound(to: UInt8.self), count: length)
                count += length
                // Line ends inside quoted fields move the line count on:
                // LF and CRLF count once, a lone CR too (old spreadsheet exports).
                if memchr(data, 13, length) != nil {
                    embeddedNewlines += Self.lineEnds(in: UnsafeRawBufferPointer(start: data, count: length))
                } else {
                    var cursor = data
                    var left = length
                    while left > 0, let found = memchr(cursor, 10, left) {
                        embeddedNewlines += 1
                        let consumed = found - cursor + 1
                        cursor = found + 1
                        left -= consumed
                    }
                }
            }
            ranges.append(start..<count)
        }

        static func lineEnds(in bytes: UnsafeRawBufferPointer) -> Int {
            var count = 0
            var previous: UInt8 = 0
            for byte in bytes {
                if byte == 13 || (byte == 10 && previous != 13) { count += 1 }
                previous = byte
            }
            return count
        }

        /// libcsv bounds a field (`ingest_csv_install_bounded_realloc`), so a row's bytes are bounded too.
        private func grow(to needed: Int) {
            let larger = max(needed, capacity * 2)
            let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
            moved.update(from: bytes, count: count)
            bytes.deallocate()
            bytes = moved
            capacity = larger
        }

        func endRow(terminator: Int32) {
            if !ranges.isEmpty, error == nil {
                do { try onRow(Row(bytes: UnsafeBufferPointer(start: bytes, count: count), ranges: ranges, line: line)) } catch { self.error = error }
            }
            let blank = ranges.isEmpty
            count = 0
            ranges.removeAll(keepingCapacity: true)
            line += embeddedNewlines
            embeddedNewlines = 0
            // libcsv reports every line end (CSV_REPALL_NL): CR, LF, or both
            // of a CRLF, the LF as a row of its own with no fields.
            switch terminator {
            case 13:
                line += 1
                afterCR = true
            case 10:
                if !(afterCR && blank) { line += 1 }
                afterCR = false
            default:
                afterCR = false
            }
        }
    }

    /// Streams `file` through libcsv; `onRow` may throw to stop early.
    /// Malformed quoting or an oversized field is a `FeedFailure` with the line.
    public func read(_ file: FeedFile, onRow: (Row) throws -> Void) throws {
        let stream = try file.openStream()
        let chunkSize = 256 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { buffer.deallocate() }
        // libcsv cannot stop inside a chunk: a reader that wants only the
        // header and first record (the run's classification of every feed)
        // paid for the rows of a whole 256 KiB chunk. A small first chunk
        // keeps that to a few rows.
        var want = Self.firstChunkSize
        try parse(onRow: onRow) { feed in
            while true {
                let count = try stream.read(into: buffer.baseAddress!, count: want)
                want = chunkSize
                if count == 0 { return }
                try feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
        }
    }

    /// The first row of `bytes` (a file's sample), for recognising a file by
    /// its header; its last field may be cut, which a header check tolerates.
    public func firstRow(of bytes: ArraySlice<UInt8>) -> [[UInt8]]? {
        rows(of: bytes, limit: 1, wholeFile: true).first
    }

    /// Up to `limit` rows of a file's sample, quotes honoured, for recognising
    /// a file by its header and first codes. Unless the sample is the whole
    /// file, a last row whose end the sample did not reach is left out.
    public func rows(of bytes: ArraySlice<UInt8>, limit: Int, wholeFile: Bool) -> [[[UInt8]]] {
        struct Done: Error {}
        var rows: [[[UInt8]]] = []
        let sample = Array(bytes)
        do {
            try parse(onRow: { row in
                rows.append(row.fields)
                if rows.count > limit { throw Done() }
            }) { feed in
                try sample.withUnsafeBytes { try feed($0) }
            }
        } catch {
            // The limit reached, or a sample cut inside a quoted field: the rows so far stand.
        }
        if rows.count > limit {
            rows.removeLast(rows.count - limit)
        } else if !wholeFile, !rows.isEmpty {
            rows.removeLast()
        }
        return rows
    }

    /// Runs libcsv over what `produce` hands to `feed`, chunk by chunk.
    private func parse(onRow: (Row) throws -> Void,
                       produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        // The closure lives only as long as this call; the context holding it does too.
        try withoutActuallyEscaping(onRow) { onRow in try parse(escapingOnRow: onRow, produce: produce) }
    }

    private func parse(escapingOnRow onRow: @escaping (Row) throws -> Void,
                       produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        var parser = csv_parser()
        // Not CSV_STRICT: it fails a file for a quote inside an unquoted field.
        guard csv_init(&parser, UInt8(CSV_REPALL_NL)) == 0 else {
            throw FeedFailure(reason: .unreadable, message: "libcsv could not initialise")
        }
        defer { csv_free(&parser) }
        ingest_csv_install_bounded_realloc(&parser)
        csv_set_delim(&parser, delimiter)
        csv_set_quote(&parser, quote)
        // libcsv drops spaces and tabs around unquoted fields; in a fixed-width line they are positions.
        if wholeLines { csv_set_space_func(&parser) { _ in 0 } }

        let context = Context(onRow: onRow)
        let pointer = Unmanaged.passUnretained(context).toOpaque()
        // _withUnsafeGuaranteedRef: the context outlives the parse, and a plain
        // takeUnretainedValue() cost a retain and a release per field.
        let fieldCallback: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Void = { data, length, context in
            Unmanaged<Context>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.append(data, length) }
        }
        let rowCallback: @convention(c) (Int32, UnsafeMutableRawPointer?) -> Void = { terminator, context in
            Unmanaged<Context>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.endRow(terminator: terminator) }
        }
        func feedParser(_ chunk: UnsafeRawBufferPointer) throws {
            guard let start = chunk.baseAddress, !chunk.isEmpty else { return }
            let parsed = csv_parse(&parser, start, chunk.count, fieldCallback, rowCallback, pointer)
            if let error = context.error { throw error }
            if parsed != chunk.count { throw failure(parser: &parser, line: context.line) }
        }
        var first = true
        var transcoder: TextTranscoder?
        try produce { chunk in
            var chunk = chunk
            if first {
                first = false
                transcoder = try self.transcoder(for: chunk, skip: &chunk)
            }
            if let transcoder {
                try transcoder.convert(chunk).withUnsafeBytes { try feedParser($0) }
            } else {
                try feedParser(chunk)
            }
        }
        if let transcoder { try transcoder.finish().withUnsafeBytes { try feedParser($0) } }
        if ingest_csv_in_open_quote(&parser) != 0 {
            // The file ended inside a quoted field, opened on the row's first line.
            throw FeedFailure(reason: .malformedCSV, message: "a quoted field opened on line \(context.line) is never closed", line: context.line)
        }
        if csv_fini(&parser, fieldCallback, rowCallback, pointer) != 0 {
            throw failure(parser: &parser, line: context.line)
        }
        if let error = context.error { throw error }
    }

    /// What turns the file into UTF-8, from its first bytes: a UTF-8 BOM is
    /// dropped; a UTF-16 BOM picks the byte order (and is dropped); otherwise
    /// the named encoding, if it is not UTF-8.
    private func transcoder(for chunk: UnsafeRawBufferPointer, skip: inout UnsafeRawBufferPointer) throws -> TextTranscoder? {
        if chunk.starts(with: [0xEF, 0xBB, 0xBF]) {
            skip = UnsafeRawBufferPointer(rebasing: chunk[3...])
            return nil
        }
        if let mark = TextTranscoder.byteOrderMark(chunk), encoding == nil || encoding!.uppercased().hasPrefix("UTF-16") || encoding!.uppercased().hasPrefix("UCS-2") {
            skip = UnsafeRawBufferPointer(rebasing: chunk[mark.length...])
            return TextTranscoder(charset: mark.charset)
        }
        guard let encoding else { return nil }
        guard let transcoder = TextTranscoder(charset: encoding) else {
            throw FeedFailure(reason: .unreadable, message: "iconv does not know the encoding '\(encoding)'")
        }
        return transcoder
    }

    private func failure(parser: inout csv_parser, line: Int) -> FeedFailure {
        let code = csv_error(&parser)
        if code == CSV_ENOMEM {
            return ParseLimits.exceeded("field_bytes", limit: ParseLimits.fieldBytes, "a field on line \(line) is longer than", bytes: true, line: line)
        }
        return FeedFailure(reason: .malformedCSV, message: "malformed CSV: \(String(cString: csv_strerror(code)))", line: line)
    }
}

extension RejectReason {
    public static let malformedCSV = RejectReason(rawValue: "malformed_csv")
}
