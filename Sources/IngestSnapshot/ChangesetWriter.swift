import CSQLite
import Crypto
import Foundation
import IngestCore

/// Writes a changeset in SQLite's session format (the one
/// `sqlite3session_changeset` makes and `sqlite3changeset_apply` takes)
/// straight to a file, row by row, with its SHA-256 on the way: the night
/// writes what it changed while it compares (`SnapshotMerge`), and never
/// holds the changeset in memory.
///
/// The format, per the session extension's own description: per table a
/// header (`'T'`, the column count as a varint, one byte per column: its
/// place in the primary key counted from 1, 0 for other columns, as
/// `PRAGMA table_info`'s `pk` gives it; then the name and a NUL), then its records: an
/// operation byte (INSERT 18, UPDATE 23, DELETE 9), an "indirect" byte (0),
/// and the record's values. A DELETE carries every old value, an INSERT
/// every new one; an UPDATE carries the old row with only the key and the
/// changed columns defined and the new row with only the changed columns
/// defined. A value is a type byte (0 undefined, 1 integer, 2 real, 3 text,
/// 4 blob, 5 NULL), then 8 big-endian bytes for a number or a varint length
/// and the bytes for text and blobs. A test compares the bytes with
/// `sqlite3session_diff`'s.
public final class ChangesetWriter {
    /// The finished file: its size and SHA-256.
    public struct Written: Sendable, Equatable {
        public var size: Int64
        public var sha256: String
        /// Records written (rows changed), all tables together.
        public var records: Int
    }

    enum Operation: UInt8 {
        case insert = 18, update = 23, delete = 9
    }

    private let descriptor: Int32
    private let path: String
    private var buffer: [UInt8] = []
    private var hasher = SHA256()
    private var size: Int64 = 0
    private var records = 0
    /// The current table's header, written before its first record only (a table without changes has none, as with SQLite).
    private var pendingHeader: [UInt8]?

    /// Creates `path` (which must not exist).
    public init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXFailure(operation: "create", path: path) }
        self.path = path
        buffer.reserveCapacity(Self.flushAt + 4096)
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    static let flushAt = 1 << 20

    /// Starts a table: `keyPositions[i]` is column i's place in its primary key (from 1), 0 outside it.
    func table(_ name: String, keyPositions: [UInt8]) {
        var header: [UInt8] = [UInt8(ascii: "T")]
        Self.appendVarint(UInt64(keyPositions.count), to: &header)
        header += keyPositions
        header += Array(name.utf8) + [0]
        pendingHeader = header
    }

    /// The row `statement` is on, from column `offset` on (`count` columns), as an INSERT or a DELETE.
    func whole(_ operation: Operation, _ statement: OpaquePointer, offset: Int32, count: Int32) throws {
        begin(operation)
        for column in 0..<count { appendValue(statement, offset + column) }
        try flushIfFull()
    }

    /// An UPDATE from the row of `old` to the row of `new` (same columns
    /// from `oldOffset` and `newOffset`), `changed[i]` for the columns that differ.
    func update(old: OpaquePointer, oldOffset: Int32, new: OpaquePointer, newOffset: Int32, primaryKey: [Bool], changed: [Bool]) throws {
        begin(.update)
        for column in 0..<Int32(changed.count) {
            if primaryKey[Int(column)] || changed[Int(column)] { appendValue(old, oldOffset + column) } else { buffer.append(0) }
        }
        for column in 0..<Int32(changed.count) {
            if changed[Int(column)] { appendValue(new, newOffset + column) } else { buffer.append(0) }
        }
        try flushIfFull()
    }

    /// Writes what is buffered, syncs and closes the file.
    public func finish() throws -> Written {
        try flush()
        guard fsync(descriptor) == 0 else { throw POSIXFailure(operation: "fsync", path: path) }
        let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        return Written(size: size, sha256: digest, records: records)
    }

    private func begin(_ operation: Operation) {
        if let header = pendingHeader {
            buffer += header
            pendingHeader = nil
        }
        buffer.append(operation.rawValue)
        buffer.append(0)
        records += 1
    }

    private func appendValue(_ statement: OpaquePointer, _ column: Int32) {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            buffer.append(1)
            Self.appendBigEndian(UInt64(bitPattern: sqlite3_column_int64(statement, column)), to: &buffer)
        case SQLITE_FLOAT:
            buffer.append(2)
            Self.appendBigEndian(sqlite3_column_double(statement, column).bitPattern, to: &buffer)
        case SQLITE_TEXT:
            appendBytes(tag: 3, UnsafeRawPointer(sqlite3_column_text(statement, column)), count: sqlite3_column_bytes(statement, column))
        case SQLITE_BLOB:
            appendBytes(tag: 4, sqlite3_column_blob(statement, column), count: sqlite3_column_bytes(statement, column))
        default:
            buffer.append(5)
        }
    }

    /// Text or a blob: its tag, its length as a varint, its bytes (SQLite's pointer first, then its length: the documented order).
    private func appendBytes(tag: UInt8, _ start: UnsafeRawPointer?, count: Int32) {
        buffer.append(tag)
        Self.appendVarint(UInt64(count), to: &buffer)
        if let start, count > 0 { buffer.append(contentsOf: UnsafeRawBufferPointer(start: start, count: Int(count))) }
    }

    private func flushIfFull() throws {
        if buffer.count >= Self.flushAt { try flush() }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        hasher.update(data: buffer)
        try buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw POSIXFailure(operation: "write", path: path)
                }
                offset += written
            }
        }
        size += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    static func appendBigEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// SQLite's varint (`sqlite3PutVarint`): 7 bits a byte, most significant
    /// first, the high bit set on all but the last; a ninth byte holds 8 bits.
    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        if value <= 0x7f {
            bytes.append(UInt8(value))
            return
        }
        if value & (UInt64(0xff00_0000) << 32) != 0 {
            var nine = [UInt8](repeating: 0, count: 9)
            var rest = value
            nine[8] = UInt8(truncatingIfNeeded: rest)
            rest >>= 8
            for index in stride(from: 7, through: 0, by: -1) {
                nine[index] = UInt8(truncatingIfNeeded: rest & 0x7f) | 0x80
                rest >>= 7
            }
            bytes += nine
            return
        }
        var groups: [UInt8] = []
        var rest = value
        repeat {
            groups.append(UInt8(truncatingIfNeeded: rest & 0x7f) | 0x80)
            rest >>= 7
        } while rest != 0
        groups[0] &= 0x7f
        bytes += groups.reversed()
    }
}
