import ArgumentParser
import Foundation
import IngestAdapters
import IngestPipeline
import IngestSnapshot
import Logging

/// `ingest [import]`: one run over the feeds folder.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Read the feeds folder, build a snapshot and publish it as `current`.",
        discussion: ExitStatus.helpText
    )

    @Option(name: .long, help: "Folder of feed files.")
    var feeds = "feeds"

    @Option(name: .long, help: "Folder of published snapshots (created if missing).")
    var snapshots = "var/snapshots"

    @Option(name: .long, help: "Folder of mapping and rule files.")
    var mappings = "mappings"

    @Flag(name: .long, help: "Do the whole run but publish nothing; print the report.")
    var dryRun = false

    @Option(name: .long, help: "How many published versions to keep (current is always kept).")
    var keep = 7

    @Option(name: .long, help: "Parse threads (default: one per core).")
    var threads: Int?

    func validate() throws {
        guard keep >= 1 else { throw ValidationError("--keep must be at least 1") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
    }

    func run() throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots, mappingsDirectory: mappings,
                                    dryRun: dryRun, retention: keep)
        if let threads { options.parseThreads = threads }
        let report: RunReport
        do {
            report = try ImportRun(options: options).run()
        } catch {
            let status = Self.status(for: error)
            FileHandle.standardError.write(Data("ingest: \(error)\n".utf8))
            throw status.exitCode
        }
        print(ReportFormatter().format(report), terminator: "")
        if report.blocked != nil { throw ExitStatus.emptyResult.exitCode }
    }

    /// The exit code for each kind of failure (see `ExitStatus`).
    static func status(for error: Error) -> ExitStatus {
        switch error {
        case let error as ImportError:
            switch error {
            case .feedsDirectoryMissing: return .feedsMissing
            case .configuration: return .configuration
            }
        case is SnapshotLock.Held: return .locked
        case is SnapshotPublisher.IntegrityFailure: return .integrityFailure
        case let error as POSIXFailure:
            if error.isCannotCreate { return .cannotWrite }
            return .ioError
        case let error as SQLiteError:
            return error.isDiskFull ? .ioError : (error.primaryCode == 8 /* READONLY */ || error.primaryCode == 14 /* CANTOPEN */ ? .cannotWrite : .ioError)
        default: return .internalError
        }
    }
}
