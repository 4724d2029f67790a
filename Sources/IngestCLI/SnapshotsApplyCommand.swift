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
            (.emptyResult, "the changeset is damaged (malformed, or not read through in --check-timeout): the copy is unchanged"),
            (.usage, "--to is a link, a hard link or a file in a snapshots folder: apply changes a copy, never a published version"),
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
        @Option(name: .long, help: ArgumentHelp("The newer version's manifest (default: <version>.manifest.json beside the changeset file, when there): the applied copy must hold its content digests, or nothing is applied.",
                                                valueName: "file"))
        var manifest: String?
        @Option(name: .long, help: ArgumentHelp("Seconds the changeset may take to be read through before anything is applied; a damaged one is refused (65) past them.",
                                                valueName: "seconds"))
        var checkTimeout = 60.0

        func validate() throws {
            guard checkTimeout > 0 else { throw ValidationError("--check-timeout is a number of seconds above 0") }
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
            if let refusal = Self.refusal(of: to) {
                printError("ingest: --to \(to) \(refusal); apply changes a copy of your own (cp the version first)")
                throw ExitStatus.usage.exitCode
            }
            let actual = ChangesetDigest(of: changeset)
            guard actual == expected else {
                printError("ingest: \(file) does not match its digest (sha-256 \(actual.hex), expected \(expected.hex)): "
                    + "truncated or altered on the way; nothing was applied to \(to)")
                throw ExitStatus.integrityFailure.exitCode
            }
            if let problem = try walk() {
                printError("ingest: \(file) is damaged: \(problem); nothing was applied to \(to)")
                throw ExitStatus.emptyResult.exitCode
            }
            let content = try expectedContent()
            do {
                try SnapshotChangeset.apply(changeset, to: to, expected: content?.digests)
            } catch let error as SQLiteError {
                printError("ingest: \(file) does not apply to \(to) (a copy of another version?): \(error); the copy is unchanged")
                throw ExitStatus.emptyResult.exitCode
            } catch let mismatch as SnapshotChangeset.ContentMismatch {
                printError("ingest: \(file) applied to \(to) does not give \(content?.version ?? "the newer version"): \(mismatch); rolled back, the copy is unchanged")
                throw ExitStatus.emptyResult.exitCode
            }
            let checked = content.map { ", every table as \($0.version)'s manifest says" } ?? "; not checked against a manifest (--manifest)"
            print("applied \(file) to \(to): \(changeset.count) bytes, sha-256 \(actual.hex)\(checked)")
        }

        /// The newer version's content digests: from `--manifest`, or the
        /// manifest beside a nightly `<version>.changeset`; nil when neither is there.
        private func expectedContent() throws -> (version: String, digests: [String: String])? {
            let path: String
            if let manifest {
                path = manifest
            } else {
                let beside = (file as NSString).deletingPathExtension + ".manifest.json"
                guard file.hasSuffix(".changeset"), FileManager.default.fileExists(atPath: beside) else { return nil }
                path = beside
            }
            let read: Manifest
            do { read = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
                printError("ingest: the manifest \(path) cannot be read: \(error)")
                throw (manifest == nil ? ExitStatus.ioError : ExitStatus.inputMissing).exitCode
            }
            guard let digests = read.contentDigests else {
                printError("ingest: the manifest \(path) (\(read.version)) has no content digests (written before they were); nothing was applied")
                throw ExitStatus.usage.exitCode
            }
            return (read.version, digests)
        }

        /// Why `path` must not be changed in place: a link (`S/current`), a
        /// file with other names (a hard link to a published version), or a
        /// file in a snapshots folder. nil for a copy of one's own.
        static func refusal(of path: String) -> String? {
            var info = stat()
            guard lstat(path, &info) == 0 else { return nil }
            if (info.st_mode & S_IFMT) == S_IFLNK { return "is a symbolic link (to a published version?)" }
            if info.st_nlink > 1 { return "has \(info.st_nlink) names (hard links): one may be a published version" }
            var folder = (path as NSString).deletingLastPathComponent
            if folder.isEmpty { folder = "." }
            var link = stat()
            let holdsCurrent = lstat("\(folder)/current", &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK
            let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            if holdsCurrent || FileManager.default.fileExists(atPath: "\(folder)/\(name).manifest.json") {
                return "lies in a snapshots folder (\(folder))"
            }
            return nil
        }

        /// `ChangesetWalk` in a child process (this binary, `snapshots
        /// walk-changeset`), killed after `checkTimeout`: a changeset that
        /// hangs or crashes the walk is damaged, and this process lives to say so.
        private func walk() throws -> String? {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
            process.arguments = ["snapshots", "walk-changeset", file, "--against", to]
            let errors = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            let ended = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in ended.signal() }
            try process.run()
            let said = errors.fileHandleForReading
            if ended.wait(timeout: .now() + checkTimeout) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return "it could not be read through in \(Self.seconds(checkTimeout)) s (--check-timeout)"
            }
            let message = String(decoding: (try? said.readToEnd()) ?? Data(), as: UTF8.self) // nothing said reads as empty
                .trimmingCharacters(in: .whitespacesAndNewlines)
            switch (process.terminationReason, process.terminationStatus) {
            case (.exit, 0): return nil
            case (.exit, ExitStatus.emptyResult.rawValue): return message.isEmpty ? "its check found it malformed" : message
            case (.uncaughtSignal, let signal): return "reading it through crashed the check (signal \(signal))"
            case (_, let status): throw CheckFailed(status: status, message: message)
            }
        }

        struct CheckFailed: Error, CustomStringConvertible {
            var status: Int32
            var message: String
            var description: String { "the changeset's check ended with exit \(status): \(message)" }
        }

        static func seconds(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
    }

    /// `snapshots walk-changeset FILE --against COPY`: `apply`'s check in a
    /// process of its own; not for people (hidden from help).
    struct WalkChangeset: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "walk-changeset", shouldDisplay: false)
        @Argument var file: String
        @Option var against: String

        func run() throws {
            let changeset = try Data(contentsOf: URL(fileURLWithPath: file))
            if let problem = try ChangesetWalk.problem(in: changeset, against: against) {
                printError(problem)
                throw ExitStatus.emptyResult.exitCode
            }
        }
    }
}
