/// Splits a line of an unquoted delimited record (RAX: `;`, never quoted, a
/// `;` never inside a field) into byte ranges without copying. This is not
/// CSV: quoted formats go through libcsv (`DelimitedFileReader`).
struct ByteFields {
    private(set) var ranges: [Range<Int>] = []
    let line: UnsafeBufferPointer<UInt8>

    init(_ line: UnsafeBufferPointer<UInt8>, separator: UInt8, limit: Int = 64) {
        var storage: [Range<Int>] = []
        self.init(line, separator: separator, limit: limit, reusing: &storage)
    }

    /// Splits into `storage`, emptied first and kept by the caller from line
    /// to line: once the previous line's fields are gone its buffer is reused,
    /// so a file of millions of records does not allocate one array each.
    init(_ line: UnsafeBufferPointer<UInt8>, separator: UInt8, limit: Int = 64, reusing storage: inout [Range<Int>]) {
        self.line = line
        storage.removeAll(keepingCapacity: true)
        var start = 0
        for index in 0..<line.count where line[index] == separator {
            storage.append(start..<index)
            start = index + 1
            if storage.count > limit { break }
        }
        if storage.count <= limit { storage.append(start..<line.count) }
        ranges = storage
    }

    var count: Int { ranges.count }

    /// The field's bytes with ASCII spaces and tabs trimmed.
    func trimmed(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        var start = ranges[index].lowerBound
        var end = ranges[index].upperBound
        while start < end, line[start] == 32 || line[start] == 9 { start += 1 }
        while end > start, line[end - 1] == 32 || line[end - 1] == 9 { end -= 1 }
        return UnsafeBufferPointer(rebasing: line[start..<end])
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// `[-]digits` as an integer, or nil (no digits, other bytes, or overflow).
    func parseInteger(allowNegative: Bool) -> Int128? {
        var value: Int128 = 0
        var negative = false
        var digits = 0
        for (index, byte) in enumerated() {
            if index == 0, byte == UInt8(ascii: "-"), allowNegative { negative = true; continue }
            guard byte >= 48, byte <= 57 else { return nil }
            digits += 1
            if digits > 30 { return nil }
            value = value * 10 + Int128(byte - 48)
        }
        guard digits > 0 else { return nil }
        return negative ? -value : value
    }

    var asciiString: String { String(decoding: self, as: UTF8.self) }
}
