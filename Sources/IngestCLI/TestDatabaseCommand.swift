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

    @Option(name: .long, help: ArgumentHelp("A second night, one day later, when this many pharmacies' feeds do not come: the database is that night's, those pharmacies carried over, stale (READ_API.md's `s`, `maxAge`). Not with chain files, which hold many pharmacies each.", valueName: "count"))
    var stalePharmacies = 0

    func validate() throws {
        guard stalePharmacies >= 0, stalePharmacies < generator.pharmacies else {
            throw ValidationError("--stale-pharmacies must be 0 or more and fewer than --pharmacies")
        }
        guard stalePharmacies == 0 || !generator.formats.contains("chain") else {
            throw ValidationError("--stale-pharmacies: a chain file holds many pharmacies; choose formats without chain")
        }
    }

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
        var report = try Self.night(options)
        if stalePharmacies > 0 {
            // The next night: every feed a day later but the last `stalePharmacies` pharmacies'.
            var later = generator
            later.daysLater += 1
            let night = "\(scratch)/night2"
            _ = try later.generate(into: night, exportDay: asOf.map { Self.exportDay(before: $0.date) })
            let missing = Set(((generator.pharmacies - stalePharmacies)..<generator.pharmacies).map(FeedGenerator.pharmacyID))
            do {
                for name in try FileManager.default.contentsOfDirectory(atPath: "\(night)/feeds")
                where name.split(whereSeparator: { $0 == "_" || $0 == "." }).contains(where: { missing.contains(String($0)) }) {
                    try FileManager.default.removeItem(atPath: "\(night)/feeds/\(name)")
                }
            } catch {
                printError("ingest: \(error)")
                throw ExitStatus.cannotWrite.exitCode
            }
            options.feedsDirectory = "\(night)/feeds"
            options.now = options.now.addingTimeInterval(86_400)
            options.asOf = options.asOf.addingTimeInterval(86_400)
            // A test database asks for these pharmacies missing: no gate holds the night back.
            options.force = true
            report = try Self.night(options)
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

    /// One import; a failure exits with its status.
    private static func night(_ options: ImportOptions) throws -> RunReport {
        do { return try ImportRun(options: options).run() } catch {
            printError("ingest: \(error)")
            throw ImportCommand.status(for: error).exitCode
        }
    }

    /// The Tallinn day before `date`: the night whose exports a run at `date` reads.
    static func exportDay(before date: Date) -> GeneratedDay {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = ExportTimestamp.tallinn
        let parts = calendar.dateComponents([.year, .month, .day], from: date.addingTimeInterval(-86_400))
        return GeneratedDay(year: parts.year!, month: parts.month!, day: parts.day!)
    }
}
