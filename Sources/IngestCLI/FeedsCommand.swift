import ArgumentParser
import Foundation
import IngestCore
import IngestPipeline
import IngestSnapshot

/// `ingest feeds prune`: the feeds folder's files that published nights
/// judged for good (loaded, skipped as not newer, rejected for their own
/// content), removed once they are old enough that nobody will look again.
struct FeedsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feeds",
        abstract: "Tidy the feeds folder: remove files earlier nights have loaded or rejected.",
        discussion: "Each subcommand lists its own exit codes in its --help.",
        subcommands: [Prune.self])

    struct Prune: ParsableCommand {
        static let exitCodes: [(ExitStatus, String)] = [
            (.success, "removed (or, with --dry-run, listed) the files, or none was old enough"),
            (.inputMissing, "there is no feeds folder"),
            (.cannotWrite, "a file could not be removed (permissions, read-only)"),
            (.ioError, "the feeds folder or a file in it cannot be read"),
        ] + ExitStatus.always
        static let configuration = CommandConfiguration(
            abstract: "Remove files loaded or rejected at least DAYS ago: loaded by a kept version (its manifest), or rejected for good (the feeds ledger).",
            discussion: "A file is known by its SHA-256: one changed since is kept, and judged again. " + ExitStatus.helpText(exitCodes))

        @Option(name: .long, help: "Folder of feed files.")
        var feeds = "feeds"
        @Option(name: .long, help: "Folder of published snapshots (where the ledger is).")
        var snapshots = "var/snapshots"
        @Option(name: .long, help: ArgumentHelp("Only files judged at least this many days ago.", valueName: "days"))
        var olderThan: Int
        @Flag(name: .long, help: "Only say which files would be removed.")
        var dryRun = false

        func validate() throws {
            guard olderThan >= 0 else { throw ValidationError("--older-than is a number of days, 0 or more") }
        }

        func run() throws {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: feeds, isDirectory: &isDirectory), isDirectory.boolValue else {
                printError("ingest: there is no feeds folder \(feeds)")
                throw ExitStatus.inputMissing.exitCode
            }
            let today = ExportTimestamp.tallinnTime(Date()).localDate
            let files: [FeedLedger.Prunable]
            do { files = try FeedLedger.prunable(in: SnapshotDirectory(path: snapshots), feeds: feeds, olderThan: olderThan, today: today) } catch {
                printError("ingest: the feeds folder \(feeds) cannot be read: \(error)")
                throw ExitStatus.ioError.exitCode
            }
            guard !files.isEmpty else {
                print("nothing to prune: no file in \(feeds) was judged \(olderThan) or more days ago")
                return
            }
            for file in files {
                let path = file.path
                let what = "\(TextHygiene.visible(file.name)) (\(file.outcome)\(file.reason.map { " \($0)" } ?? "") on \(file.night))"
                if dryRun {
                    print("would remove \(what)")
                } else if unlink(path) == 0 {
                    print("removed \(what)")
                } else {
                    printError("ingest: \(path) cannot be removed: \(String(cString: strerror(errno)))")
                    throw ExitStatus.cannotWrite.exitCode
                }
            }
        }
    }
}
