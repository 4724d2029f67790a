import Foundation
import IngestCore

/// Builds a file's bytes in a buffer and writes them out in large chunks:
/// the generator writes a gigabyte for the national workload.
///
/// A failed write (a full disk) is kept and the rest is not written;
/// `finish()` throws it, so `generate` never reports success over a
/// truncated feed. `close()` (from a `defer`) only releases the descriptor.
struct ByteSink {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var failure: GeneratorError?
    private var closed = false
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

    private mutating func flush() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard failure == nil else { return }
        do {
            try FileIO.write(buffer, to: descriptor, path: path)
        } catch {
            failure = error.code == ENOSPC || error.code == EDQUOT ? .diskFull(path) : .cannotWrite(path, String(cString: strerror(error.code)))
        }
    }

    /// Writes what is left and closes the file; throws the first write failure.
    mutating func finish() throws {
        flush()
        close()
        if let failure { throw failure }
    }

    mutating func close() {
        guard !closed else { return }
        closed = true
        if Glibc.close(descriptor) != 0, failure == nil { failure = .cannotWrite(path, String(cString: strerror(errno))) }
    }
}

public enum GeneratorError: Error, CustomStringConvertible {
    case cannotWrite(String, String)
    case diskFull(String)
    case missingRules(String)
    case tooFewPharmacies(String)

    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason): return "cannot write \(path): \(reason)"
        case .diskFull(let path): return "cannot write \(path): no space left on the device; the feeds folder is incomplete"
        case .missingRules(let path): return "no patient price rules at \(path) to copy into the generated mappings"
        case .tooFewPharmacies(let message): return message
        }
    }
}
