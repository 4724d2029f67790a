import Foundation
import IngestCore

/// Writes the read API's JSON straight into bytes, keys in the order
/// READ_API.md prints them. Written by hand rather than with Foundation's
/// JSONEncoder for two measured reasons: JSONEncoder on Linux writes keys in
/// no fixed order (a client diffing two answers sees noise), and it took
/// most of the time of the two large answers (500 pharmacies, 500 offers),
/// whose p99 under wrk was 470 ms and 125 ms with it (`make bench-serve`).
///
/// The bytes live in memory of its own, written through a pointer, and
/// `finish()` hands that memory to the answer's `Data` without a copy.
/// With an `[UInt8]` each of the few thousand small writes of a 500-entry
/// answer checked the array's uniqueness and capacity, and the answer was
/// then copied into a `Data`: together a fifth of `?q=p`'s CPU under wrk
/// (`perf record`). Noncopyable, so two writers never share that memory.
package struct JSONWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    package private(set) var count = 0
    private var capacity: Int
    /// Whether the next value or key follows another in the same container.
    private var needsComma = false

    package init(capacity: Int = 1024) {
        self.capacity = Swift.max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes as an answer's body, without copying them: the `Data` frees them.
    package consuming func finish() -> Data {
        let data = Data(bytesNoCopy: base, count: count, deallocator: .custom { memory, _ in memory.deallocate() })
        discard self
        return data
    }

    /// A copy of the bytes written so far, for what keeps them (a snapshot's rendered fields, a log line).
    package var bytes: [UInt8] { withBytes { Array($0) } }

    package func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    package mutating func object(_ body: (inout JSONWriter) -> Void) { container(0x7B, 0x7D, body) }
    mutating func array(_ body: (inout JSONWriter) -> Void) { container(0x5B, 0x5D, body) }

    package mutating func field(_ key: String, _ value: String) {
        self.key(key)
        string(value)
    }

    package mutating func field(_ key: String, _ value: Int) {
        self.key(key)
        separate()
        append(String(value))
        needsComma = true
    }

    /// A field holding an object or an array: `writer.key("p"); writer.array { … }`.
    mutating func key(_ key: String) {
        separate()
        quoted(key)
        append(0x3A)
        needsComma = false
    }

    /// Fields rendered earlier (`field` after `field` with no object
    /// around them), placed as they are in the current object.
    mutating func fields(_ rendered: UnsafeBufferPointer<UInt8>) {
        separate()
        append(rendered)
        needsComma = true
    }

    /// Ends a run of fields written without an object around them, so the
    /// next run starts without a comma.
    mutating func endFields() { needsComma = false }

    /// A field whose value `render` appends as bytes that need no escaping
    /// (a price, a distance), with no `String` made for it.
    mutating func field(_ key: StaticString, unescaped render: (inout JSONWriter) -> Void) {
        separate()
        append(0x22)
        append(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)) // a literal key: nothing to escape
        reserve(3)
        base[count] = 0x22
        base[count + 1] = 0x3A
        base[count + 2] = 0x22
        count += 3
        render(&self)
        append(0x22)
        needsComma = true
    }

    mutating func string(_ value: String) {
        separate()
        quoted(value)
        needsComma = true
    }

    private mutating func container(_ open: UInt8, _ close: UInt8, _ body: (inout JSONWriter) -> Void) {
        separate()
        append(open)
        needsComma = false
        body(&self)
        append(close)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { append(0x2C) }
    }

    /// The one escaper (`JSONString`) decides: a string with nothing to
    /// escape goes in as it is, any other through it.
    private mutating func quoted(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            if JSONString.needsNoEscaping(utf8) {
                append(0x22)
                append(utf8)
                append(0x22)
            } else {
                var escaped: [UInt8] = []
                JSONString.append(String(decoding: utf8, as: UTF8.self), to: &escaped)
                escaped.withUnsafeBufferPointer { append($0) }
            }
        }
    }

    // MARK: Bytes

    private mutating func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        var grown = capacity * 2
        while count + more > grown { grown *= 2 }
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        memory.update(from: base, count: count)
        base.deallocate()
        base = memory
        capacity = grown
    }

    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }
}

/// A read API answer that writes itself as JSON.
protocol JSONWritable {
    func write(to writer: inout JSONWriter)
    /// About the answer's size: its buffer is reserved once, not doubled
    /// from 1 KiB with a copy each time (a 100 KB answer moved 200 KB so).
    var estimatedBytes: Int { get }
}

extension JSONWritable {
    var estimatedBytes: Int { 1024 }

    /// The answer's body.
    var jsonData: Data {
        var writer = JSONWriter(capacity: estimatedBytes)
        write(to: &writer)
        return writer.finish()
    }

    var json: [UInt8] { [UInt8](jsonData) }
}
