import Foundation

/// Builds a file's bytes in a buffer and writes them out in large chunks:
/// the generator writes a gigabyte for the national workload.
struct ByteSink {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    let path: String

    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw GeneratorError.cannotWrite(path, String(cString: strerror(errno))) }
        buffer.reserveCapacity(1 << 20)
    }

    mutating func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 20 { flush() }
    }

    mutating func append(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { flush() }
    }

    mutating func flush() {
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written <= 0 { if errno == EINTR { continue }; return }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    mutating func close() {
        flush()
        Glibc.close(descriptor)
    }
}

public enum GeneratorError: Error, CustomStringConvertible {
    case cannotWrite(String, String)
    case missingRules(String)
    case tooFewPharmacies(String)

    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason): return "cannot write \(path): \(reason)"
        case .missingRules(let path): return "no patient price rules at \(path) to copy into the generated mappings"
        case .tooFewPharmacies(let message): return message
        }
    }
}
