import Foundation
import IngestCore

/// A changeset as `ingest-serve` sends it: an open file and the SHA-256
/// of its bytes, read a chunk at a time as the client takes them. The
/// night's own file is sent as it lies beside its snapshot, checked against
/// its manifest first; a changeset combined from several nights is written
/// once to a file with no name, gone from the disk when the last client is
/// done with it.
///
/// Held in memory, the bench's nightly changeset (96 MB) was most of the
/// server's resident memory, and each further version clients came from
/// (four pairs are kept) would have added its own.
public final class OpenChangeset: Sendable {
    /// The descriptor, closed with the last reference: a pruned or replaced
    /// file stays readable, so what was checked is what is sent.
    private final class Descriptor: Sendable {
        let value: Int32
        init(_ value: Int32) { self.value = value }
        deinit { close(value) }
    }

    private let descriptor: Descriptor
    /// Where it came from, for errors.
    public let path: String
    public let size: Int
    public let digest: ChangesetDigest

    private init(descriptor: Descriptor, path: String, size: Int, digest: ChangesetDigest) {
        self.descriptor = descriptor
        self.path = path
        self.size = size
        self.digest = digest
    }

    /// One version's nightly changeset, opened and checked against its manifest.
    public static func nightly(_ version: String, in directory: SnapshotDirectory) throws -> OpenChangeset {
        let manifest = try directory.readManifest(version)
        guard let entry = manifest.changeset else { throw ChangesetChain.Damaged(version: version, reason: "is not listed in its manifest") }
        let path = "\(directory.path)/\(entry.file)"
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else { throw POSIXFailure(operation: "open", path: path) }
        let descriptor = Descriptor(opened)
        var size = 0
        let hex = try FileDigest.sha256 { buffer, count in
            let got = try FileIO.read(descriptor.value, at: size, into: buffer, count: count, path: path)
            size += got
            return got
        }
        guard hex == entry.sha256, Int64(size) == entry.size, let digest = ChangesetDigest(parsing: hex) else {
            throw ChangesetChain.Damaged(version: version, reason: "does not match its manifest (\(size) bytes, SHA-256 \(hex); the manifest says \(entry.size) bytes, \(entry.sha256))")
        }
        return OpenChangeset(descriptor: descriptor, path: path, size: size, digest: digest)
    }

    /// `data` (a changeset made here) in a file of its own in `directory`,
    /// its name removed as soon as it is open (Swift's Glibc has no `O_TMPFILE`).
    public static func holding(_ data: Data, in directory: String) throws -> OpenChangeset {
        var template = Array("\(directory)/ingest-serve-changeset-XXXXXX".utf8CString)
        let opened = mkstemp(&template)
        guard opened >= 0 else { throw POSIXFailure(operation: "mkstemp", path: directory) }
        unlink(template)
        let descriptor = Descriptor(opened)
        _ = fcntl(opened, F_SETFD, FD_CLOEXEC) // only keeps a child process from inheriting it; the server starts none
        let path = "\(directory) (a changeset of \(data.count) bytes)"
        try FileIO.write(data, to: descriptor.value, path: path)
        return OpenChangeset(descriptor: descriptor, path: path, size: data.count, digest: ChangesetDigest(of: data))
    }

    /// `count` bytes from `offset` into `buffer`. The file was checked
    /// when opened and is read through that descriptor: ending sooner now
    /// is a damaged disk, thrown.
    public func read(at offset: Int, into buffer: UnsafeMutableRawPointer, count: Int) throws {
        var done = 0
        while done < count {
            let got = try FileIO.read(descriptor.value, at: offset + done, into: buffer + done, count: count - done, path: path)
            guard got > 0 else { throw POSIXFailure(operation: "pread (the file ended at \(offset + done) of \(size) bytes)", path: path, code: EIO) }
            done += got
        }
    }

    /// The whole changeset, for a caller that wants it in memory (a test, a command).
    public func data() throws -> Data {
        guard size > 0 else { return Data() }
        var data = Data(count: size)
        let count = size
        try data.withUnsafeMutableBytes { try read(at: 0, into: $0.baseAddress!, count: count) }
        return data
    }
}
