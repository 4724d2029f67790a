import CCSV
import Foundation
import IngestCore

/// RFC 4180 delimited files through libcsv: quoted fields with embedded
/// delimiters, doubled quotes and newlines; CRLF or LF; an optional UTF-8
/// BOM; blank lines skipped. Rows are handed over with the line they start on.
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
    static let firstChunkSize = 16 * 1024

    public init(delimiter: UInt8 = UInt8(ascii: ","), quote: UInt8 = UInt8(ascii: "\"")) {
        self.delimiter = delimiter
        self.quote = quote
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
        var onRow: (Row) throws -> Void
        var error: Error?
        init(onRow: @escaping (Row) throws -> Void) {
            self.onRow = onRow
            ranges.reserveCapacity(64)
        }
        deinit { bytes.deallocate() }

        func append(_ data: UnsafeMutableRawPointer?, _ length: Int) {
            let start = count
            if let data, length > 0 {
                if count + length > capacity { grow(to: count + length) }
                (bytes + count).update(from: data.assumingMemoryBound(to: UInt8.self), count: length)
                count += length
                // Newlines inside quoted fields move the line count on.
                var cursor = data
                var left = length
                while left > 0, let found = memchr(cursor, 10, left) {
                    embeddedNewlines += 1
                    let consumed = found - cursor + 1
                    cursor = found + 1
                    left -= consumed
                }
            }
            ranges.append(start..<count)
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
            count = 0
            ranges.removeAll(keepingCapacity: true)
            line += embeddedNewlines
            embeddedNewlines = 0
            if terminator == 10 { line += 1 }
        }
    }

    /// Streams `path` through libcsv; `onRow` may throw to stop early.
    /// Malformed quoting or an oversized field is a `FeedFailure` with the line.
    public func read(path: String, onRow: (Row) throws -> Void) throws {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw FeedFailure(reason: .unreadable, message: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
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
                let count = Glibc.read(descriptor, buffer.baseAddress, want)
                want = chunkSize
                if count < 0 {
                    if errno == EINTR { continue }
                    throw FeedFailure(reason: .unreadable, message: "read failed: \(String(cString: strerror(errno)))")
                }
                if count == 0 { return }
                try feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
        }
    }

    /// The first row of `bytes` (a file's sample), for recognising a file by its header.
    public func firstRow(of bytes: ArraySlice<UInt8>) -> [[UInt8]]? {
        struct Done: Error {}
        var first: [[UInt8]]?
        // The sample may end inside the header's last field; cut at the first line end.
        let end = bytes.firstIndex(of: 10).map { $0 + 1 } ?? bytes.endIndex
        let line = Array(bytes[bytes.startIndex..<end])
        do {
            try parse(onRow: { row in first = row.fields; throw Done() }) { feed in
                try line.withUnsafeBytes { try feed($0) }
            }
        } catch {}
        return first
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
        guard csv_init(&parser, UInt8(CSV_STRICT | CSV_STRICT_FINI | CSV_REPALL_NL)) == 0 else {
            throw FeedFailure(reason: .unreadable, message: "libcsv could not initialise")
        }
        defer { csv_free(&parser) }
        ingest_csv_install_bounded_realloc(&parser)
        csv_set_delim(&parser, delimiter)
        csv_set_quote(&parser, quote)

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
        var first = true
        try produce { chunk in
            guard var start = chunk.baseAddress else { return }
            var length = chunk.count
            if first, length >= 3, chunk[0] == 0xEF, chunk[1] == 0xBB, chunk[2] == 0xBF {
                start += 3
                length -= 3
            }
            first = false
            let parsed = csv_parse(&parser, start, length, fieldCallback, rowCallback, pointer)
            if let error = context.error { throw error }
            if parsed != length { throw failure(parser: &parser, line: context.line) }
        }
        if csv_fini(&parser, fieldCallback, rowCallback, pointer) != 0 {
            throw failure(parser: &parser, line: context.line)
        }
        if let error = context.error { throw error }
    }

    private func failure(parser: inout csv_parser, line: Int) -> FeedFailure {
        let code = csv_error(&parser)
        if code == CSV_ENOMEM {
            return FeedFailure(reason: .lineTooLong, message: "a field is longer than \(1 << 20) bytes", line: line)
        }
        return FeedFailure(reason: .malformedCSV, message: "malformed CSV: \(String(cString: csv_strerror(code)))", line: line)
    }
}

extension RejectReason {
    public static let malformedCSV = RejectReason(rawValue: "malformed_csv")
}
