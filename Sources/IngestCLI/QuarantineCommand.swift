import ArgumentParser
import Foundation
import IngestAdapters
import IngestCore
import IngestPipeline
import IngestSnapshot

/// `ingest quarantine add|list|remove`: files the nightly run must not read
/// again, by SHA-256, kept in the snapshots folder (`quarantine.json`). A
/// quarantined feed is skipped with outcome `quarantined` and its pharmacy
/// carried over, so after a rollback tomorrow's run does not load the same
/// bad file again.
struct QuarantineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quarantine",
        abstract: "Set feed files aside by SHA-256: the nightly run skips them (outcome quarantined) and carries their pharmacies over.",
        discussion: "Each subcommand lists its own exit codes in its --help.",
        subcommands: [Add.self, List.self, Remove.self]
    )

    static let exitCodes: [(name: String, codes: [(ExitStatus, String)])] = [
        ("add", Add.exitCodes), ("list", List.exitCodes), ("remove", Remove.exitCodes),
    ]

    /// The list, or exit 70 when the file cannot be read (skipping it would let bad feeds back in).
    static func load(_ location: SnapshotsCommand.Location) throws -> Quarantine {
        do { return try Quarantine.load(from: location.directory) } catch {
            printError("ingest: \(error)")
            throw ExitStatus.integrityFailure.exitCode
        }
    }

    /// `Quarantine.update` with the exit codes: 70 for a list that cannot be read, 73/74 for a failed write.
    static func update<Result>(_ location: SnapshotsCommand.Location, _ change: (inout Quarantine) throws -> Result) throws -> Result {
        var result: Result?
        try location.guarded {
            do { result = try Quarantine.update(in: location.directory, change) } catch let unreadable as Quarantine.QuarantineUnreadable {
                printError("ingest: \(unreadable)")
                throw ExitStatus.integrityFailure.exitCode
            }
        }
        return result!
    }

    struct Add: ParsableCommand {
        static let exitCodes: [(ExitStatus, String)] = [
            (.success, "every file is quarantined (or was already)"),
            (.inputMissing, "a file or the snapshots folder is missing; nothing is added"),
            (.integrityFailure, "quarantine.json cannot be read; nothing is added"),
            (.cannotWrite, "the snapshots folder cannot be written"),
            (.ioError, "an I/O error"),
        ] + ExitStatus.always
        static let configuration = CommandConfiguration(
            abstract: "Quarantine FILE… by their SHA-256.", discussion: ExitStatus.helpText(exitCodes))
        @OptionGroup var location: SnapshotsCommand.Location
        @Option(name: .long, help: "Why, for the report and the list.")
        var reason = "set aside by the operator"
        @Argument(help: "The feed files.")
        var files: [String]

        func run() throws {
            try location.requireFolder()
            try ServiceUser.require(snapshots: location.snapshots)
            var digests: [(String, String)] = []
            for path in files {
                guard FileManager.default.fileExists(atPath: path) else {
                    printError("ingest: \(FeedPath.displayName(Array(path.utf8))) does not exist; nothing is added")
                    throw ExitStatus.inputMissing.exitCode
                }
                try location.guarded { digests.append((path, try FileDigest.sha256(path: path))) }
            }
            let now = MachineTime.utcSeconds(Date())
            let lines = try QuarantineCommand.update(location) { quarantine in
                digests.map { path, digest in
                    let name = (path as NSString).lastPathComponent
                    let added = quarantine.add(.init(sha256: digest, file: name, addedAt: now, reason: reason))
                    return "\(added ? "quarantined" : "already quarantined") \(String(digest.prefix(12))) \(TextHygiene.visible(FeedPath.displayName(Array(name.utf8))))"
                }
            }
            lines.forEach { print($0) }
        }
    }

    struct List: ParsableCommand {
        static let exitCodes: [(ExitStatus, String)] = [
            (.success, "listed"), (.inputMissing, "there is no snapshots folder"), (.integrityFailure, "quarantine.json cannot be read"),
        ] + ExitStatus.always
        static let configuration = CommandConfiguration(abstract: "Every quarantined file: SHA-256, when, the file's name, why.",
                                                        discussion: ExitStatus.helpText(exitCodes))
        @OptionGroup var location: SnapshotsCommand.Location

        func run() throws {
            try location.requireFolder()
            let quarantine = try QuarantineCommand.load(location)
            guard !quarantine.isEmpty else {
                print("nothing is quarantined")
                return
            }
            for entry in quarantine.entries {
                // The list is a file anyone with write access may have edited: its text reaches the terminal escaped.
                print(TextHygiene.visible("\(String(entry.sha256.prefix(12)))  \(entry.addedAt)  \(FeedPath.displayName(Array(entry.file.utf8)))  \(entry.reason)"))
            }
        }
    }

    struct Remove: ParsableCommand {
        static let exitCodes: [(ExitStatus, String)] = [
            (.success, "removed"),
            (.inputMissing, "nothing quarantined has that SHA-256 (or its first 12 digits) or file name"),
            (.integrityFailure, "quarantine.json cannot be read"),
            (.cannotWrite, "the snapshots folder cannot be written"),
            (.ioError, "an I/O error"),
        ] + ExitStatus.always
        static let configuration = CommandConfiguration(abstract: "Let a quarantined file in again.", discussion: ExitStatus.helpText(exitCodes))
        @OptionGroup var location: SnapshotsCommand.Location
        @Argument(help: "Its SHA-256 (or the 12 digits `list` shows), or its file name.")
        var key: String

        func run() throws {
            try location.requireFolder()
            try ServiceUser.require(snapshots: location.snapshots)
            let removed = try QuarantineCommand.update(location) { quarantine in
                let full = quarantine.entries.first { key.count >= 12 && $0.sha256.hasPrefix(key) }?.sha256 ?? key
                return quarantine.remove(full)
            }
            guard !removed.isEmpty else {
                printError("ingest: nothing quarantined is \(TextHygiene.visible(key)); see ingest quarantine list")
                throw ExitStatus.inputMissing.exitCode
            }
            for entry in removed { print("removed \(String(entry.sha256.prefix(12))) \(TextHygiene.visible(FeedPath.displayName(Array(entry.file.utf8))))") }
        }
    }
}
