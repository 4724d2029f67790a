import IngestAdapters
import IngestSnapshot

/// A feed's SHA-256 taken from the bytes its adapter reads anyway: the file
/// is read once a night instead of twice (a feed of hundreds of MB on a cold
/// cache paid its size in I/O again; warm, the second pass was about 1 % of
/// a national run's CPU).
///
/// It holds only when one stream read the file from its first byte to its
/// end, and that end came at the file's size: an adapter that stopped early
/// (a fault mid-file), opened the file twice, or a file that changed size
/// gives no value, and the caller reads the file for its digest as before.
///
/// Used by the one parse thread that reads the file; the lock-free state is
/// why it is `@unchecked Sendable`.
final class OnePassDigest: FeedByteObserver, @unchecked Sendable {
    private var running = FileDigest.Running()
    private var streams = 0
    private var bytes: Int64 = 0
    private var ended = false

    func streamOpened() { streams += 1 }

    func read(_ buffer: UnsafeRawBufferPointer) {
        guard streams == 1, !ended else { return }
        running.update(buffer)
        bytes += Int64(buffer.count)
    }

    func streamEnded() {
        if streams == 1 { ended = true }
    }

    /// The digest when the one pass covered `size` bytes; nil otherwise.
    func value(size: Int64) -> String? {
        guard streams == 1, ended, bytes == size else { return nil }
        return running.hex
    }
}
