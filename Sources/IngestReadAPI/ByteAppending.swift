/// Where the read API's numbers are written as digits: straight into an
/// answer (`JSONWriter`, for the hundreds of prices and distances of one
/// answer, with no `String` made for any) or into an array, for the few
/// places that want a price as text.
protocol ByteAppending: ~Copyable {
    mutating func appendByte(_ byte: UInt8)
    mutating func appendBytes(_ bytes: [UInt8])
}

extension JSONWriter: ByteAppending {
    mutating func appendByte(_ byte: UInt8) { append(byte) }
    mutating func appendBytes(_ bytes: [UInt8]) { append(bytes) }
}

extension Array: ByteAppending where Element == UInt8 {
    mutating func appendByte(_ byte: UInt8) { append(byte) }
    mutating func appendBytes(_ bytes: [UInt8]) { append(contentsOf: bytes) }
}
