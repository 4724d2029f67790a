import ArgumentParser
import Foundation
import IngestCore
import IngestGenerator
import IngestPipeline
import IngestSnapshot

/// `ingest testdb`: generate, import and hand over the snapshot, in one step.
struct TestDatabaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "testdb",
        abstract: "Generate feeds into a temporary folder, import them, and copy the snapshot to FILE.",
        discussion: ExitStatus.helpText(exitCodes)
    )
    static let exitCodes: [(ExitStatus, String)] = [
        (.success, "the snapshot was written"), (.emptyResult, "no stock feed loaded any offer"),
        (.integrityFailure, "the built snapshot failed its check"), (.cannotWrite, "FILE or the temporary folder cannot be written"),
        (.ioError, "an I/O error such as a full disk"), (.configuration, "the generated mappings or rules are invalid"),
    ] + ExitStatus.always

    @Option(name: .long, help: "Where to write the snapshot (an SQLite file).")
    var out: String

    @OptionGroup var generator: GeneratorOptions

    @Option(name: .long, help: ArgumentHelp("Build a database of another era: the feeds are exported the evening before this time (YYYY-MM-DD, midnight in Tallinn, or ISO 8601), the reimbursement list is valid from January 1 of that year, and the import runs as of it.", valueName: "time"))
    var asOf: AsOfTime?

    func run() throws {
        let scratchDirectory: ScratchDirectory
        do { scratchDirectory = try ScratchDirectory(purpose: "testdb") } catch {
            printError("ingest: \(error)")
            throw ImportCommand.status(for: error).exitCode
        }
        defer { withExtendedLifetime(scratchDirectory) {} }
        let scratch = scratchDirectory.path
        let truth = try generator.generate(into: scratch, exportDay: asOf.map { Self.exportDay(before: $0.date) })
        // With --as-of every timestamp, the version and `created_at` too, comes from it:
        // the same arguments give a byte-identical file (SNAPSHOT.md).
        var options = ImportOptions(feedsDirectory: "\(scratch)/feeds", snapshotsDirectory: "\(scratch)/snapshots",
                                    mappingsDirectory: "\(scratch)/mappings", now: asOf?.date ?? Date(), asOf: asOf?.date)
        options.gates.maxRejectRatePercent = truth.maxRejectRatePercent
        options.importerVersion = importerVersion
        let report: RunReport
        do { report = try ImportRun(options: options).run() } catch {
            printError("ingest: \(error)")
            throw ImportCommand.status(for: error).exitCode
        }
        guard let published = report.snapshotPath else {
            printError("ingest: the generated feeds produced no snapshot: \(report.blocked.map { "\($0)" } ?? "unknown")")
            throw ExitStatus.emptyResult.exitCode
        }
        do {
            try? FileManager.default.removeItem(atPath: out)
            try FileManager.default.copyItem(atPath: published, toPath: out)
        } catch {
            printError("ingest: cannot write \(out): \(error)")
            throw ExitStatus.cannotWrite.exitCode
        }
        let counts = ["pharmacies", "items", "offers"].map { "\($0) \(report.rowCounts[$0, default: 0])" }.joined(separator: ", ")
        print("wrote \(out): \(counts)")
    }

    /// The Tallinn day before `date`: the night whose exports a run at `date` reads.
    static func exportDay(before date: Date) -> GeneratedDay {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = ExportTimestamp.tallinn
        let parts = calendar.dateComponents([.year, .month, .day], from: date.addingTimeInterval(-86_400))
        return GeneratedDay(year: parts.year!, month: parts.month!, day: parts.day!)
    }
}
