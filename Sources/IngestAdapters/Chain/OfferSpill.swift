import Foundation
import IngestCore

/// A pharmacy's accepted offers from a chain file, parked on disk between
/// the split and the parse phase, so a chain of any size costs a buffer per
/// pharmacy instead of all its offers in memory.
///
/// The format is private to one run (written and read by the same binary):
/// per offer, three little-endian `Int64` (line, price, quantity or
/// `Int64.min` for none) and seven
/// strings, each a `UInt32` byte count (`UInt32.max` for nil) and its UTF-8.
public enum OfferSpill {
    static let bufferSize = 32 * 1024
    private static let absent = UInt32.max
    /// A quantity the feed did not report (no stock count is negative).
    static let noQuantity = Int64.min

    /// Appends offers to one spill file. The file is opened per flush, not
    /// held open: a chain of thousands of pharmacies must not run out of
    /// file descriptors.
    public struct Writer {
        public let path: String
        private var buffer: [UInt8] = []

        public init(path: String) {
            self.path = path
            buffer.reserveCapacity(OfferSpill.bufferSize)
        }

        public mutating func append(_ offer: StockOffer) throws(POSIXFailure) {
            integer(Int64(offer.line))
            integer(offer.priceCents)
            integer(offer.quantity ?? OfferSpill.noQuantity)
            // One call per field: an array literal of the seven was an allocation per offer.
            string(offer.aptcode)
            string(offer.packageCode)
            string(offer.gtin)
            string(offer.name)
            string(offer.producer)
            string(offer.atc)
            string(offer.activeSubstance)
            if buffer.count >= OfferSpill.bufferSize { try flush() }
        }

        public mutating func flush() throws(POSIXFailure) {
            guard !buffer.isEmpty else { return }
            let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { throw POSIXFailure(operation: "create spill file", path: path) }
            defer { close(descriptor) }
            try FileIO.write(buffer, to: descriptor, operation: "write spill file", path: path)
            buffer.removeAll(keepingCapacity: true)
        }

        /// Writes what is buffered and lets the buffer go: a split's parts
        /// wait for the parse phase, and hundreds of them each keeping 32 KB
        /// showed in the peak RSS of a national night.
        public mutating func finish() throws(POSIXFailure) {
            try flush()
            buffer = []
        }

        private mutating func integer(_ value: Int64) {
            withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
        }

        private mutating func string(_ text: String?) {
            guard var text else {
                withUnsafeBytes(of: OfferSpill.absent.littleEndian) { buffer.append(contentsOf: $0) }
                return
            }
            text.withUTF8 { bytes in
                withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { buffer.append(contentsOf: $0) }
                buffer.append(contentsOf: bytes)
            }
        }
    }

    /// Reads a spill back in the order it was written, a buffer at a time.
    public static func read(path: String, _ body: (StockOffer) throws -> Void) throws {
        guard let cursor = try Cursor(path: path) else { return } // a part whose every row was rejected wrote nothing
        while let offer = try cursor.next() { try body(offer) }
    }

    /// A spill read one offer at a time (a merge of sorted runs reads many at once).
    public final class Cursor {
        private let descriptor: Int32
        private var reader: Reader

        /// Nil when the file does not exist: nothing was spilled.
        public init?(path: String) throws(POSIXFailure) {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            if descriptor < 0, errno == ENOENT { return nil }
            guard descriptor >= 0 else { throw POSIXFailure(operation: "open spill file", path: path) }
            self.descriptor = descriptor
            reader = Reader(descriptor: descriptor, path: path)
        }

        deinit { close(descriptor) }

        public func next() throws(POSIXFailure) -> StockOffer? {
            guard try reader.fill(1) else { return nil }
            let line = try reader.integer()
            let price = try reader.integer()
            let quantity = try reader.integer()
            let aptcode = try reader.string() ?? ""
            let packageCode = try reader.string()
            let gtin = try reader.string()
            let name = try reader.string() ?? ""
            let producer = try reader.string()
            let atc = try reader.string()
            let substance = try reader.string()
            return StockOffer(aptcode: aptcode, packageCode: packageCode, gtin: gtin, name: name, producer: producer, atc: atc,
                              activeSubstance: substance, priceCents: price, quantity: quantity == noQuantity ? nil : quantity,
                              line: Int(line))
        }
    }

    private struct Reader {
        let descriptor: Int32
        let path: String
        var buffer: [UInt8] = []
        var position = 0

        init(descriptor: Int32, path: String) {
            self.descriptor = descriptor
            self.path = path
        }

        /// Makes `count` bytes available; false at a clean end of file.
        mutating func fill(_ count: Int) throws(POSIXFailure) -> Bool {
            if buffer.count - position >= count { return true }
            buffer.removeFirst(position)
            position = 0
            let size = max(OfferSpill.bufferSize, count)
            let chunk = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
            defer { chunk.deallocate() }
            while buffer.count < count {
                let got = try FileIO.read(descriptor, into: chunk, count: size, operation: "read spill file", path: path)
                if got == 0 {
                    guard buffer.isEmpty else { throw POSIXFailure(operation: "read spill file (cut short)", path: path, code: EIO) }
                    return false
                }
                buffer.append(contentsOf: UnsafeRawBufferPointer(start: chunk, count: got))
            }
            return true
        }

        mutating func integer() throws(POSIXFailure) -> Int64 {
            _ = try fill(8)
            var value: Int64 = 0
            withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: buffer[position..<position + 8]) }
            position += 8
            return Int64(littleEndian: value)
        }

        mutating func string() throws(POSIXFailure) -> String? {
            _ = try fill(4)
            var length: UInt32 = 0
            withUnsafeMutableBytes(of: &length) { $0.copyBytes(from: buffer[position..<position + 4]) }
            position += 4
            length = UInt32(littleEndian: length)
            if length == OfferSpill.absent { return nil }
            let count = Int(length)
            guard try fill(count) else { throw POSIXFailure(operation: "read spill file (cut short)", path: path, code: EIO) }
            defer { position += count }
            return String(decoding: buffer[position..<position + count], as: UTF8.self)
        }
    }
}
