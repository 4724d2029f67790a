import Foundation

/// The system calls every file of the importer goes through, retried
/// when a signal interrupts them (EINTR), once, here: the loop was written
/// seven times before, each a chance to forget the retry or a partial write.
public enum FileIO {
    /// read(2) of up to `count` bytes; 0 at the end of the file. Throws with `errno`.
    public static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int,
                            operation: String = "read", path: String) throws(POSIXFailure) -> Int {
        while true {
            let got = Glibc.read(descriptor, buffer, count)
            if got >= 0 { return got }
            if errno != EINTR { throw POSIXFailure(operation: operation, path: path) }
        }
    }

    /// pread(2) of up to `count` bytes at `offset`, leaving the file's position alone (several readers share one
    /// descriptor); 0 at the end of the file. Throws with `errno`.
    public static func read(_ descriptor: Int32, at offset: Int, into buffer: UnsafeMutableRawPointer, count: Int,
                            path: String) throws(POSIXFailure) -> Int {
        while true {
            let got = Glibc.pread(descriptor, buffer, count, off_t(offset))
            if got >= 0 { return got }
            if errno != EINTR { throw POSIXFailure(operation: "pread", path: path) }
        }
    }

    /// write(2) until every byte is written. A write that takes nothing is a full disk.
    public static func write(_ bytes: some ContiguousBytes, to descriptor: Int32,
                             operation: String = "write", path: String) throws(POSIXFailure) {
        // The closure does not throw: a typed throw out of `withUnsafeBytes` crashed the 6.3 compiler.
        let code: Int32? = bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if written == 0 { return ENOSPC }
                offset += written
            }
            return nil
        }
        if let code { throw POSIXFailure(operation: operation, path: path, code: code) }
    }
}
