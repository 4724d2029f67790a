import IngestCore

/// Writes the read API's JSON straight into bytes, keys in the order
/// READ_API.md prints them. Written by hand rather than with Foundation's
/// JSONEncoder for two measured reasons: JSONEncoder on Linux writes keys in
/// no fixed order (a client diffing two answers sees noise), and it took
/// most of the time of the two large answers (500 pharmacies, 500 offers),
/// whose p99 under wrk was 470 ms and 125 ms with it (`make bench-serve`).
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    /// Whether the next value or key follows another in the same container.
    private var needsComma = false

    package init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    package mutating func object(_ body: (inout JSONWriter) -> Void) { container(0x7B, 0x7D, body) }
    mutating func array(_ body: (inout JSONWriter) -> Void) { container(0x5B, 0x5D, body) }

    package mutating func field(_ key: String, _ value: String) {
        self.key(key)
        string(value)
    }

    package mutating func field(_ key: String, _ value: Int) {
        self.key(key)
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// A field holding an object or an array: `writer.key("p"); writer.array { … }`.
    mutating func key(_ key: String) {
        separate()
        quoted(key)
        bytes.append(0x3A)
        needsComma = false
    }

    /// Fields rendered earlier (`field` after `field` with no object
    /// around them), placed as they are in the current object.
    mutating func fields(_ rendered: UnsafeBufferPointer<UInt8>) {
        separate()
        bytes.append(contentsOf: rendered)
        needsComma = true
    }

    /// Ends a run of fields written without an object around them, so the
    /// next run starts without a comma.
    mutating func endFields() { needsComma = false }

    /// A field whose value `render` appends as bytes that need no escaping
    /// (a price, a distance), with no `String` made for it.
    mutating func field(_ key: StaticString, unescaped render: (inout [UInt8]) -> Void) {
        separate()
        bytes.append(0x22)
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)) // a literal key: nothing to escape
        bytes.append(contentsOf: [0x22, 0x3A, 0x22])
        render(&bytes)
        bytes.append(0x22)
        needsComma = true
    }

    mutating func string(_ value: String) {
        separate()
        quoted(value)
        needsComma = true
    }

    private mutating func container(_ open: UInt8, _ close: UInt8, _ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(open)
        needsComma = false
        body(&self)
        bytes.append(close)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(0x2C) }
    }

    /// The one escaper (`JSONString`): the answers and the journals write strings alike.
    private mutating func quoted(_ text: String) {
        JSONString.append(text, to: &bytes)
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

    var json: [UInt8] {
        var writer = JSONWriter(capacity: estimatedBytes)
        write(to: &writer)
        return writer.bytes
    }
}
