/// An optional that a JSON document always carries: `null` when there is no
/// value, never a missing key, so a reader (and the report's JSON Schema)
/// can tell "nothing" from "not written by this version". Synthesized
/// `Codable` writes a wrapped property with `encode`, and this writes `nil`
/// as `null`; a document without the key still reads, as nil.
@propertyWrapper
public struct NullEncoded<Value: Codable & Sendable>: Codable, Sendable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension NullEncoded: Equatable where Value: Equatable {}

extension KeyedDecodingContainer {
    /// A key that a document of an earlier version lacks reads as nil.
    public func decode<Value>(_ type: NullEncoded<Value>.Type, forKey key: Key) throws -> NullEncoded<Value> {
        try decodeIfPresent(type, forKey: key) ?? NullEncoded(wrappedValue: nil)
    }
}
