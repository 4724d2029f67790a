import ArgumentParser
import Foundation
import IngestSnapshot

extension SnapshotsCommand {
    /// `snapshots apply FILE --to COPY --digest D`: the client's side of
    /// `?q=changes`, for scripts and as the apps' reference. The digest is
    /// checked before SQLite reads a byte of the changeset: libsqlite3 3.40
    /// applies a truncated changeset without a word, applies some flipped
    /// bits as wrong data, and crashes on others.
    struct Apply: ParsableCommand {
        static let exitCodes: [(ExitStatus, String)] = [
            (.success, "the changeset was applied"),
            (.integrityFailure, "the changeset does not match its digest: nothing was applied"),
            (.emptyResult, "the changeset does not apply to the copy (a copy of another version?): the copy is unchanged"),
            (.inputMissing, "the changeset or the copy is missing"),
            (.ioError, "the changeset or the copy cannot be read or written"),
        ] + ExitStatus.always
        static let configuration = CommandConfiguration(
            abstract: "Apply a changeset to a copy of the version it was made from, after checking its SHA-256.",
            discussion: "The digest is the server's Repr-Digest header (sha-256=:BASE64:) or 64 hex digits. The copy changes in "
                + "one transaction: all of the changeset or nothing. " + ExitStatus.helpText(exitCodes))

        @Argument(help: "The changeset file (from ?q=changes or `ingest snapshots changeset`).") var file: String
        @Option(name: .long, help: ArgumentHelp("The snapshot copy to change.", valueName: "copy")) var to: String
        @Option(name: .long, help: ArgumentHelp("Its SHA-256: the Repr-Digest header's value, or hex.", valueName: "digest"))
        var digest: String

        func validate() throws {
            guard ChangesetDigest(parsing: digest) != nil else {
                throw ValidationError("--digest is sha-256=:BASE64: (the Repr-Digest header) or 64 hex digits, not \(digest.debugDescription)")
            }
        }

        func run() throws {
            let expected = ChangesetDigest(parsing: digest)! // validate() has parsed it
            for (path, what) in [(file, "changeset"), (to, "copy")] where !FileManager.default.fileExists(atPath: path) {
                printError("ingest: no \(what) at \(path)")
                throw ExitStatus.inputMissing.exitCode
            }
            let changeset: Data
            do { changeset = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                printError("ingest: the changeset \(file) cannot be read: \(error)")
                throw ExitStatus.ioError.exitCode
            }
            let actual = ChangesetDigest(of: changeset)
            guard actual == expected else {
                printError("ingest: \(file) does not match its digest (sha-256 \(actual.hex), expected \(expected.hex)): "
                    + "truncated or altered on the way; nothing was applied to \(to)")
                throw ExitStatus.integrityFailure.exitCode
            }
            do {
                try SnapshotChangeset.apply(changeset, to: to)
            } catch let error as SQLiteError {
                printError("ingest: \(file) does not apply to \(to) (a copy of another version?): \(error); the copy is unchanged")
                throw ExitStatus.emptyResult.exitCode
            }
            print("applied \(file) to \(to): \(changeset.count) bytes, sha-256 \(actual.hex)")
        }
    }
}
