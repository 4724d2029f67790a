import Foundation
import IngestCore

/// What a run's rejects and warnings files hold: one JSON object a line.
public protocol JournalEntry: Sendable, Codable {
    associatedtype Kind: Hashable & Comparable & Sendable
    /// The reason or code entries are counted and sampled by.
    var kind: Kind { get }
    /// The entry as one JSON line with sorted keys, exactly as `JSONEncoder`
    /// (`.sortedKeys`, `.withoutEscapingSlashes`) writes it: encoding by hand
    /// is about twenty times faster, and a truncated feed yields millions.
    func appendJSONLine(to bytes: inout [UInt8])
}

/// A run's rejects (or warnings), in bounded memory: every entry goes to
/// the journal's file once more than `heldInMemory` have come, and memory
/// keeps only their counts by kind and a sample, the first `samplePerKind`
/// of each kind (what the printed and JSON reports show; the file has all).
///
/// As a collection it is that sample. Entries keep the order they were
/// appended in: the writer appends each pharmacy's journal in plan order, so
/// the file is the same from run to run whatever the parse threads did.
///
/// One owner appends; a copy shares the file, so only one of them may go on
/// appending (the report is copied only to be read).
public struct Journal<Entry: JournalEntry>: Sendable, RandomAccessCollection {
    public static var samplePerKind: Int { 100 }
    public static var heldInMemory: Int { 10_000 }

    public private(set) var sample: [Entry] = []
    public private(set) var counts: [Entry.Kind: Int] = [:]
    public private(set) var total = 0
    /// Every entry, until they are spilled.
    private var held: [Entry] = []
    private var spilled: JournalFile?
    /// Where entries spill; nil keeps them all in memory (tests, small
    /// tools). May be set until the journal has spilled.
    public var spillPath: String?

    public init(spillPath: String? = nil) {
        self.spillPath = spillPath
    }

    public var startIndex: Int { sample.startIndex }
    public var endIndex: Int { sample.endIndex }
    public subscript(position: Int) -> Entry { sample[position] }

    public mutating func append(_ entry: Entry) throws(POSIXFailure) {
        total += 1
        let seen = counts[entry.kind, default: 0]
        counts[entry.kind] = seen + 1
        if seen < Self.samplePerKind { sample.append(entry) }
        if let spilled {
            try spilled.write(entry)
        } else {
            held.append(entry)
            if let spillPath, held.count > Self.heldInMemory { try spill(to: spillPath) }
        }
    }

    public mutating func append(contentsOf entries: some Sequence<Entry>) throws(POSIXFailure) {
        for entry in entries { try append(entry) }
    }

    /// Appends `other`'s entries after this journal's, in their order.
    public mutating func append(_ other: Journal) throws(POSIXFailure) {
        guard let otherFile = other.spilled else { return try append(contentsOf: other.held) }
        if spilled == nil {
            guard let spillPath else {
                // In memory only: read the other's entries back.
                let entries: [Entry] = try otherFile.readAll()
                for entry in entries { try append(entry) }
                return
            }
            try spill(to: spillPath)
        }
        try otherFile.copy(to: spilled!)
        total += other.total
        for (kind, count) in other.counts {
            let seen = counts[kind, default: 0]
            counts[kind] = seen + count
        }
        var taken: [Entry.Kind: Int] = [:]
        for entry in other.sample {
            let before = counts[entry.kind, default: 0] - other.counts[entry.kind, default: 0]
            let index = taken[entry.kind, default: 0]
            taken[entry.kind] = index + 1
            if before + index < Self.samplePerKind { sample.append(entry) }
        }
    }

    public static func += (journal: inout Journal, entries: [Entry]) throws(POSIXFailure) {
        try journal.append(contentsOf: entries)
    }

    public static func += (journal: inout Journal, other: Journal) throws(POSIXFailure) {
        try journal.append(other)
    }

    private mutating func spill(to path: String) throws(POSIXFailure) {
        let file = try JournalFile(path: path)
        for entry in held { try file.write(entry) }
        held = []
        spilled = file
    }

    /// The sample in the order reports read in.
    public mutating func sortSample(by areInIncreasingOrder: (Entry, Entry) -> Bool) {
        sample.sort(by: areInIncreasingOrder)
    }

    /// Writes every entry to `path`, durably: the spilled file is flushed,
    /// fsynced and renamed there (it lies in the same folder), or the
    /// entries held are written through a temporary file.
    public func save(to path: String) throws {
        guard let file = spilled else {
            var bytes: [UInt8] = []
            for entry in held { entry.appendJSONLine(to: &bytes) }
            return try DurableFile.write(Data(bytes), to: path)
        }
        try file.finish()
        guard rename(file.path, path) == 0 else { throw POSIXFailure(operation: "rename to", path: path) }
    }

    /// Every entry in order, not only the sample: read back from the
    /// journal's file once it has spilled (`ingest check --all`), one line
    /// at a time, so memory holds one entry however many there are.
    public func forEveryEntry(_ body: (Entry) throws -> Void) throws {
        guard let file = spilled else { return try held.forEach(body) }
        try file.forEachEntry(body)
    }

    /// Removes the spilled file, if any (a dry run, a failed run, a journal absorbed).
    public func discard() {
        spilled?.remove()
    }
}

/// A journal's file: JSON lines through a 64 KiB buffer.
///
/// `@unchecked`: it moves with its journal from a parse thread to the
/// writer, one owner at a time (see `Journal`); a lock taken per entry would
/// be paid by every reject of a truncated feed, millions of them.
final class JournalFile: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private static let bufferSize = 64 * 1024

    init(path: String) throws(POSIXFailure) {
        self.path = path
        descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw POSIXFailure(operation: "create", path: path) }
        fchmod(descriptor, 0o644)
        buffer.reserveCapacity(Self.bufferSize + 4096)
    }

    deinit { close(descriptor) }

    func write<Entry: JournalEntry>(_ entry: Entry) throws(POSIXFailure) {
        entry.appendJSONLine(to: &buffer)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    func flush() throws(POSIXFailure) {
        guard !buffer.isEmpty else { return }
        try FileIO.write(buffer, to: descriptor, path: path)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushed and on disk.
    func finish() throws(POSIXFailure) {
        try flush()
        guard fsync(descriptor) == 0 else { throw POSIXFailure(operation: "fsync", path: path) }
    }

    /// Appends this file's bytes to `other`.
    func copy(to other: JournalFile) throws(POSIXFailure) {
        try other.flush()
        try readChunks { chunk throws(POSIXFailure) in
            other.buffer.append(contentsOf: chunk)
            try other.flush()
        }
    }

    /// The file's bytes from its start, a buffer at a time. pread: the
    /// descriptor's own offset is where appends go, and the descriptor
    /// outlives the file's name (a scratch folder may be gone).
    private func readChunks(_ body: (ArraySlice<UInt8>) throws(POSIXFailure) -> Void) throws(POSIXFailure) {
        try flush()
        var offset: off_t = 0
        var chunk = [UInt8](repeating: 0, count: Self.bufferSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw POSIXFailure(operation: "read", path: path) }
            if count == 0 { return }
            offset += off_t(count)
            try body(chunk[..<count])
        }
    }

    /// Every entry, decoded one line at a time.
    func forEachEntry<Entry: JournalEntry>(_ body: (Entry) throws -> Void) throws {
        let decoder = JSONDecoder()
        var pending: [UInt8] = []
        var failure: (any Error)?
        try readChunks { chunk in
            guard failure == nil else { return }
            pending.append(contentsOf: chunk)
            var start = 0
            while let end = pending[start...].firstIndex(of: 10) {
                do { try body(try decoder.decode(Entry.self, from: Data(pending[start..<end]))) } catch {
                    failure = error
                    return
                }
                start = end + 1
            }
            pending.removeFirst(start)
        }
        if let failure { throw failure }
        if !pending.isEmpty { try body(try decoder.decode(Entry.self, from: Data(pending))) }
    }

    /// Every entry, decoded (only for a journal kept in memory absorbing a spilled one).
    func readAll<Entry: JournalEntry>() throws(POSIXFailure) -> [Entry] {
        try flush()
        guard let data = FileManager.default.contents(atPath: path) else { throw POSIXFailure(operation: "read", path: path) }
        let decoder = JSONDecoder()
        var entries: [Entry] = []
        for line in data.split(separator: 10) {
            guard let entry = try? decoder.decode(Entry.self, from: line) else { throw POSIXFailure(operation: "decode", path: path, code: EIO) }
            entries.append(entry)
        }
        return entries
    }

    func remove() { unlink(path) }
}

/// The journals' JSON lines, strings escaped by `JSONString`.
enum JSONText {
    static func append(_ string: String, to bytes: inout [UInt8]) { JSONString.append(string, to: &bytes) }

    /// The fields rejects and warnings share, in key order.
    static func place(file: String, key: String, line: Int, message: String, to bytes: inout [UInt8], first: Bool = false) {
        self.key("file", to: &bytes, first: first)
        append(file, to: &bytes)
        self.key("key", to: &bytes)
        append(key, to: &bytes)
        self.key("line", to: &bytes)
        bytes += Array(String(line).utf8)
        self.key("message", to: &bytes)
        append(message, to: &bytes)
    }

    static func key(_ name: StaticString, to bytes: inout [UInt8], first: Bool = false) {
        bytes.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes += [UInt8(ascii: "\""), UInt8(ascii: ":")]
    }
}

extension Reject: JournalEntry {
    public var kind: RejectReason { reason }

    public func appendJSONLine(to bytes: inout [UInt8]) {
        var first = true
        if let field {
            JSONText.key("field", to: &bytes, first: true)
            JSONText.append(field, to: &bytes)
            first = false
        }
        JSONText.place(file: file, key: key, line: line, message: message, to: &bytes, first: first)
        JSONText.key("reason", to: &bytes)
        JSONText.append(reason.rawValue, to: &bytes)
        bytes += [UInt8(ascii: "}"), 10]
    }
}

extension Warning: JournalEntry {
    public var kind: WarningCode { code }

    public func appendJSONLine(to bytes: inout [UInt8]) {
        JSONText.key("code", to: &bytes, first: true)
        JSONText.append(code.rawValue, to: &bytes)
        JSONText.place(file: file, key: key, line: line, message: message, to: &bytes)
        bytes += [UInt8(ascii: "}"), 10]
    }
}
