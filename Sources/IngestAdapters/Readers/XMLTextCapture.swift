/// The text of the element a reader is interested in, gathered from
/// libxml2's characters callbacks inside the parser.
///
/// libxml2 reports every whitespace run between elements as text: a Noom
/// item costs about fifteen characters callbacks, half of them indentation.
/// Gathering text here, behind one flag, means a callback nobody wants
/// returns before it reaches a reader, and the text a reader wants lands in
/// one buffer allocated once per parser instead of a growing array per reader.
public final class XMLTextCapture {
    /// Text longer than this in one element is a broken record, not a name.
    public static let maxBytes = 64 * 1024

    private let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: XMLTextCapture.maxBytes)
    public private(set) var count = 0
    /// True when the element's text went past `maxBytes`; what came before stays.
    public private(set) var overflowed = false
    /// Text arrives only while this is set: a reader pauses it over a child
    /// element whose text is not part of the field.
    public var isActive = false

    init() {}
    deinit { storage.deallocate() }

    /// Starts the text of a new element, dropping what the last one gathered.
    public func begin() {
        count = 0
        overflowed = false
        isActive = true
    }

    /// Stops gathering; the text stays readable until the next `begin()`.
    public func end() { isActive = false }

    @inline(__always)
    func append(_ bytes: UnsafePointer<UInt8>, count length: Int) {
        guard isActive, !overflowed else { return }
        guard count + length <= Self.maxBytes else {
            overflowed = true
            return
        }
        (storage + count).update(from: bytes, count: length)
        count += length
    }

    public var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: count) }

    /// The text as a string, untrimmed.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// The text without its ASCII padding (indentation, line ends).
    public var trimmedString: String { String(decoding: bytes.trimmedASCII, as: UTF8.self) }
}
