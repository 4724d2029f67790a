import Foundation
import IngestCore

/// Streams a text file line by line through one fixed buffer, so memory stays
/// flat whatever the file size. Lines are lent as byte views into the buffer,
/// without copying; a line longer than the limit is reported once and
/// skipped, never buffered. A line past `ParseLimits.lineBytes` (a file with
/// no line ends to speak of) stops the file: `limit_exceeded`.
public struct LineReader {
    public enum Line {
        /// The line's bytes, without `\n` or `\r\n`.
        case text(UnsafeBufferPointer<UInt8>)
        /// A line over the limit, skipped; it held at least this many bytes.
        case tooLong(bytesSeen: Int)
    }

    public let file: FeedFile
    public let maxLineLength: Int
    public let chunkSize: Int

    public init(file: FeedFile, maxLineLength: Int = 64 * 1024, chunkSize: Int = 256 * 1024) {
        self.file = file
        self.maxLineLength = maxLineLength
        self.chunkSize = max(chunkSize, maxLineLength + 1)
    }

    /// Calls `body` with each line and its 1-based number. A final line
    /// without a terminator is a line too.
    public func forEachLine(_ body: (Line, Int) throws -> Void) throws {
        let stream = try file.openStream()
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: chunkSize)
        defer { buffer.deallocate() }
        guard let base = buffer.baseAddress else { return }

        var filled = 0          // bytes valid in buffer
        var lineNumber = 0
        var skipping = false    // inside an over-long line
        var skippedBytes = 0
        var endOfFile = false
        while !endOfFile {
            let count: Int
            do { count = try stream.read(into: base + filled, count: chunkSize - filled) } catch {
                throw FeedFailure(reason: error.reason, message: error.message, line: lineNumber + 1)
            }
            if count == 0 { endOfFile = true }
            filled += count
            var start = 0
            while start < filled {
                let remaining = filled - start
                guard let newline = memchr(base + start, 10, remaining) else { break }
                let end = UnsafeMutablePointer<UInt8>(newline.assumingMemoryBound(to: UInt8.self)) - base
                if skipping {
                    lineNumber += 1
                    if skippedBytes + end - start > ParseLimits.lineBytes { throw Self.overLimit(line: lineNumber) }
                    try body(.tooLong(bytesSeen: skippedBytes + end - start), lineNumber)
                    skipping = false
                    skippedBytes = 0
                } else {
                    lineNumber += 1
                    var length = end - start
                    if length > 0, base[start + length - 1] == 13 { length -= 1 }
                    if length > maxLineLength {
                        try body(.tooLong(bytesSeen: length), lineNumber)
                    } else {
                        try body(.text(UnsafeBufferPointer(start: base + start, count: length)), lineNumber)
                    }
                }
                start = end + 1
            }
            // What is left is an unterminated line: keep it, or skip it if too long.
            let leftover = filled - start
            if skipping || leftover > maxLineLength {
                if !skipping { skipping = true }
                skippedBytes += leftover
                filled = 0
                if skippedBytes > ParseLimits.lineBytes { throw Self.overLimit(line: lineNumber + 1) }
            } else {
                if start > 0, leftover > 0 { memmove(base, base + start, leftover) }
                filled = leftover
            }
            if endOfFile {
                if skipping {
                    lineNumber += 1
                    try body(.tooLong(bytesSeen: skippedBytes), lineNumber)
                } else if filled > 0 {
                    lineNumber += 1
                    var length = filled
                    if base[length - 1] == 13 { length -= 1 }
                    try body(.text(UnsafeBufferPointer(start: base, count: length)), lineNumber)
                }
            }
        }
    }

    /// A line past `ParseLimits.lineBytes`: the file is no line-based export.
    private static func overLimit(line: Int) -> FeedFailure {
        ParseLimits.exceeded("line_bytes", limit: ParseLimits.lineBytes, "line \(line) is longer than", bytes: true, line: line)
    }
}
