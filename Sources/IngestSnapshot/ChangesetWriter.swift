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
    /// Nil for a part: its bytes are hashed when they join the whole.
    private var hasher: SHA256? = SHA256()
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

    /// A part: records only, no table header, in a file without a name in
    /// `directory`, for `append(_:)` to add to a whole changeset. A table
    /// merged in halves on two threads writes its upper half to one.
    public init(partIn directory: String) throws {
        var template = Array("\(directory)/.changeset-part-XXXXXX".utf8CString)
        descriptor = mkstemp(&template)
        guard descriptor >= 0 else { throw POSIXFailure(operation: "mkstemp", path: directory) }
        path = "\(directory) (a changeset part)"
        // Nothing else opens it: without a name it goes with its descriptor, also when the night fails.
        unlink(template)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) // only keeps a child process from inheriting it; the night starts none
        hasher = nil
        buffer.reserveCapacity(Self.flushAt + 4096)
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    private var isPart: Bool { hasher == nil }

    static let flushAt = 1 << 20

    /// Starts a table: `keyPositions[i]` is column i's place in its primary key (from 1), 0 outside it.
    func table(_ name: String, keyPositions: [UInt8]) {
        guard !isPart else { return }
        var header: [UInt8] = [UInt8(ascii: "T")]
        Self.appendVarint(UInt64(keyPositions.count), to: &header)
        header += keyPositions
        header += Array(name.utf8) + [0]
        pendingHeader = header
    }

    /// An INSERT or a DELETE of a whole row: `values` holds every column,
    /// in the table's order, already in the changeset's encoding.
    func record(_ operation: Operation, values: UnsafeRawBufferPointer) {
        begin(operation)
        buffer.append(contentsOf: values)
    }

    /// An UPDATE from the row `old` to the row `new` (each column's encoded
    /// value, in the table's order), `changed[i]` for the columns that differ.
    func update(old: [UnsafeRawBufferPointer], new: [UnsafeRawBufferPointer], primaryKey: [Bool], changed: [Bool]) {
        begin(.update)
        for column in changed.indices {
            if primaryKey[column] || changed[column] { buffer.append(contentsOf: old[column]) } else { buffer.append(0) }
        }
        for column in changed.indices {
            if changed[column] { buffer.append(contentsOf: new[column]) } else { buffer.append(0) }
        }
    }

    /// The records of `part`, written after this writer's own: the table
    /// this writer started last goes on (its header first, if its own half
    /// had no record).
    public func append(_ part: ChangesetWriter) throws {
        precondition(part.isPart && !isPart, "a part is appended to a whole changeset")
        try part.flush()
        guard part.records > 0 else { return }
        begin(nil)
        var offset = 0
        var chunk = [UInt8](repeating: 0, count: Self.flushAt)
        while offset < Int(part.size) {
            let wanted = min(chunk.count, Int(part.size) - offset)
            let got = try chunk.withUnsafeMutableBytes { bytes throws(POSIXFailure) in
                try FileIO.read(part.descriptor, at: offset, into: bytes.baseAddress!, count: wanted, path: part.path)
            }
            // It wrote `size` bytes: shorter means the disk lost them.
            guard got > 0 else { throw POSIXFailure(operation: "read back a changeset part", path: part.path, code: EIO) }
            buffer.append(contentsOf: chunk[0..<got])
            offset += got
            try flushIfFull()
        }
        records += part.records
    }

    /// Writes what is buffered, syncs and closes the file.
    public func finish() throws -> Written {
        precondition(!isPart, "a part is appended, not finished")
        try flush()
        guard fsync(descriptor) == 0 else { throw POSIXFailure(operation: "fsync", path: path) }
        let digest = (hasher ?? SHA256()).finalize().map { String(format: "%02x", $0) }.joined()
        return Written(size: size, sha256: digest, records: records)
    }

    /// A record's start (an operation), or with nil only the pending table header.
    private func begin(_ operation: Operation?) {
        if let header = pendingHeader {
            buffer += header
            pendingHeader = nil
        }
        guard let operation else { return }
        buffer.append(operation.rawValue)
        buffer.append(0)
        records += 1
    }

    /// Writes the buffer out once it holds a megabyte; after each record.
    func flushIfFull() throws {
        if buffer.count >= Self.flushAt { try flush() }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        hasher?.update(data: buffer)
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

    /// The varint at `offset` and its width in bytes; width 0 when the bytes end first.
    static func readVarint(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> (value: UInt64, width: Int) {
        var value: UInt64 = 0
        for index in 0..<9 {
            guard offset + index < bytes.count else { return (0, 0) }
            let byte = bytes[offset + index]
            if index == 8 { return (value << 8 | UInt64(byte), 9) }
            value = value << 7 | UInt64(byte & 0x7f)
            if byte & 0x80 == 0 { return (value, index + 1) }
        }
        return (value, 9)
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
