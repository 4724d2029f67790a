import ArgumentParser
import Foundation
import IngestAdapters
import IngestCore
import IngestPipeline

/// `ingest check FILE…`: the import's judgement of each file without
/// building anything (`FeedCheck`): the same outcome and counts a run would
/// give it, what would be rejected and why. Records are counted, not kept,
/// so a feed of any size is checked in flat memory.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Judge feed files as the import would (outcome, counts, rejects); nothing is written.",
        discussion: "Exits \(ExitStatus.fileRejected.rawValue) when any file would be rejected whole, is unrecognised or cannot be read.\n\n"
            + ExitStatus.helpText(exitCodes)
    )
    static let exitCodes: [(ExitStatus, String)] = [
        (.success, "every file would load (with --mapping: the mapping is valid and every header matches)"),
        (.fileRejected, "a file would be rejected whole, is unrecognised, missing or unreadable (with --mapping: a header does not match)"),
        (.emptyResult, "with --mapping: a registry or register would be rejected whole for its rejects (too_many_rejects)"),
        (.ioError, "an I/O error such as a full disk"),
        (.configuration, "a mapping (or the --mapping file, also when missing) or the rule file is invalid"),
    ] + ExitStatus.always

    @OptionGroup var mappingsOptions: MappingsOptions

    @Flag(name: .long, help: "List every reject, not the first five per reason.")
    var all = false

    @Option(name: .long, help: "A stock feed rejecting more than this percent of its records is rejected whole (as in the import: default 5, or a mapping's own).")
    var maxRejectRate: Int?

    @Option(name: .long, help: ArgumentHelp("The run's time, as for the import (exports dated over a day later are rejected).", valueName: "time"))
    var asOf: AsOfTime?

    @Option(name: .long, help: ArgumentHelp("The snapshot's currency the files are judged against, as for the import (default EUR).", valueName: "code"))
    var currency: SnapshotCurrencyOption = SnapshotCurrencyOption(code: "EUR")

    @Option(name: .long, help: ArgumentHelp("Check this mapping file alone (exit 78 when it is invalid), and each FILE's header against it.",
                                            valueName: "file"))
    var mapping: String?

    @Argument(help: "Feed files to check.")
    var files: [String] = []

    func validate() throws {
        if files.isEmpty, mapping == nil { throw ValidationError("name at least one file, or --mapping") }
        guard (0...100).contains(maxRejectRate ?? 5) else { throw ValidationError("--max-reject-rate is a percentage from 0 to 100") }
    }

    func run() throws {
        if let mapping {
            let (lines, status) = MappingCheck(path: mapping, feeds: files, maxRejectRatePercent: maxRejectRate ?? 5).run()
            for line in lines { if status == .configuration { printError(line) } else { print(line) } }
            if status != .success { throw status.exitCode }
            return
        }
        let catalog = try mappingsOptions.loadCatalog()
        let rules: PatientPriceRules?
        do { rules = try PatientPriceRulesLoader.load(directory: mappingsOptions.mappings) } catch {
            printError("ingest: configuration error: \(error)")
            throw ExitStatus.configuration.exitCode
        }
        var check = FeedCheck()
        check.gates = QualityGates(maxRejectRatePercent: maxRejectRate ?? 5)
        check.gates.rejectRateFromCommandLine = maxRejectRate != nil
        if let asOf { check.asOf = asOf.date }
        check.currency = currency.code
        let report: RunReport
        do { report = try check.run(files: files, catalog: catalog, rules: rules) } catch {
            printError("ingest: \(error)")
            throw ImportCommand.status(for: error).exitCode
        }
        print(ReportFormatter(samplesPerReason: all ? .max : 5, verbose: true).formatCheck(report), terminator: "")
        if !FeedCheck.failed(report).isEmpty { throw ExitStatus.fileRejected.exitCode }
    }
}

func printError(_ text: String, terminator: String = "\n") {
    FileHandle.standardError.write(Data((text + terminator).utf8))
}
