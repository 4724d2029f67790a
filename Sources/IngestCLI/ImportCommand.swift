import ArgumentParser
import Foundation
import IngestAdapters
import IngestCore
import IngestHTMLReport
import IngestPipeline
import IngestSnapshot
import Logging

/// `ingest [import]`: one run over the feeds folder; what the cron job calls.
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

    @Option(name: .long, help: ArgumentHelp("Folder of mapping and rule files (default: mappings, which may be absent; a folder named here must exist).", valueName: "dir"))
    var mappings: String?

    @Option(name: .long, help: ArgumentHelp("The run's time: YYYY-MM-DD (midnight, Tallinn) or ISO 8601 (2011-05-20T06:00:00+03:00). Decides what is fresh, stale or dated in the future, and the lists in force.", valueName: "time"))
    var asOf: AsOfTime?

    @Flag(name: .long, help: "Do the whole run but publish nothing; print the report and the changes against current.")
    var dryRun = false

    @Flag(name: .long, help: "List every feed in the report, not only those needing attention (rejected, skipped, or with rejects).")
    var verbose = false

    @Option(name: .long, help: "Also write the report as JSON to this file; - writes it to stdout, alone (the text report then goes to stderr).")
    var report: String?

    @Flag(name: .long, help: "For cron: print nothing on a night that published (or had nothing new) with no feed rejected whole, no gate and no check failing; otherwise the verdict and what needs attention. Logs below errors are left out.")
    var quiet = false

    @Flag(name: .long, help: "With --dry-run: exit 0 when the run would publish nothing new, 2 when it would publish new data (terraform's convention).")
    var detailedExitcode = false

    @Option(name: .long, help: ArgumentHelp("Also write the HTML report to this file (dry and failed runs too; a published snapshot always gets <version>.report.html beside it).", valueName: "file"))
    var html: String?

    @Flag(name: .long, help: "Publish even if a quality gate fails (never an empty result); the manifest records it.")
    var force = false

    @Option(name: .long, help: "Quality gate: offers may fall by at most this many percent against current.")
    var maxOfferDrop = 20

    @Option(name: .long, help: "Quality gate: pharmacies may fall by at most this many percent against current.")
    var maxPharmacyDrop = 10

    @Option(name: .long, help: "Quality gate: pharmacies may rise by at most this many percent against current (a rise of 5 or fewer always passes).")
    var maxPharmacyRise = 50

    @Option(name: .long, help: "Quality gate: pharmacies the registry does not know may rise by at most this many percent of current's pharmacies (5 or fewer always pass).")
    var maxUnregisteredRise = 10

    @Option(name: .long, help: "Quality gate: at least this many percent of current's pharmacies must have a feed loaded tonight (fresh); 0 switches it off.")
    var minFreshShare = 50

    @Option(name: .long, help: "A stock feed rejecting more than this percent of its records is rejected whole (default 5; a mapping's [limits] max_reject_rate sets its own unless this is given).")
    var maxRejectRate: Int?

    @Option(name: .long, help: "Check: a feed whose median price ratio against current lies outside [1/F, F] is rejected (price_shift); 0 switches it off.")
    var maxPriceRatio = 2.0

    @Option(name: .long, help: "Check: a pharmacy's item count may fall by at most this many percent against current (item_count_drop); 100 switches it off.")
    var maxItemDrop = 50

    @Option(name: .long, help: "Check: two pharmacies' feeds with the same item lines, at least this many, are duplicate_stock; 0 switches it off.")
    var duplicateStockMinItems = 50

    @Option(name: .long, help: "Offers carried over for a pharmacy without a valid feed are dropped this many days after the run that last loaded them.")
    var maxStaleDays = 7

    @Option(name: .long, help: ArgumentHelp("Seconds one pharmacy's feeds (or one chain file) may take to parse before they are rejected (limit_exceeded) and the run goes on.", valueName: "seconds"))
    var feedTimeout = 900.0

    @Flag(name: .long, help: "Also run PRAGMA integrity_check before publishing (several times slower than the publish check).")
    var fullCheck = false

    @Option(name: .long, help: ArgumentHelp("Days of price history kept (price_history); the price in force at the window's start stays too.", valueName: "days"))
    var historyDays = 400

    @Option(name: .long, help: ArgumentHelp("The snapshot's currency, ISO 4217 (default EUR): prices are kept in its minor units, and a feed in another that does not convert to it at a fixed rate is rejected (wrong_currency).", valueName: "code"))
    var currency: SnapshotCurrencyOption = SnapshotCurrencyOption(code: "EUR")

    @Flag(name: .long, help: "Build as a first night: carry nothing over from current and compare nothing with it. Without it, a current that cannot be read stops the run (exit 70).")
    var firstNight = false

    @Option(name: .long, help: "How many published versions to keep (current is always kept).")
    var keep = 7

    @Option(name: .long, help: "Parse threads (default: one per core).")
    var threads: Int?

    @Flag(name: .long, help: "Run as root: become the owner of the snapshots folder first (without it, a root run in a folder of another user is refused, 64).")
    var asOwner = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard keep >= 1 else { throw ValidationError("--keep must be at least 1") }
        guard !detailedExitcode || dryRun else { throw ValidationError("--detailed-exitcode goes with --dry-run") }
        for (option, path) in [("--report", report), ("--html", html), ("--metrics-file", output.metricsFile)] {
            if let path, let refusal = OutputFile.refusal(of: path, protecting: snapshots) { throw ValidationError("\(option) \(refusal)") }
        }
        guard historyDays >= 0 else { throw ValidationError("--history-days must be 0 or more") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        for (name, value) in [("--max-offer-drop", maxOfferDrop), ("--max-pharmacy-drop", maxPharmacyDrop), ("--max-reject-rate", maxRejectRate ?? 5),
                             ("--min-fresh-share", minFreshShare)]
        where !(0...100).contains(value) {
            throw ValidationError("\(name) is a percentage from 0 to 100")
        }
        for (name, value) in [("--max-pharmacy-rise", maxPharmacyRise), ("--max-unregistered-rise", maxUnregisteredRise)] where value < 0 {
            throw ValidationError("\(name) is a percentage, 0 or more")
        }
        guard feedTimeout > 0 else { throw ValidationError("--feed-timeout is a number of seconds above 0") }
        guard maxStaleDays >= 0 else { throw ValidationError("--max-stale-days cannot be negative") }
        guard maxPriceRatio == 0 || maxPriceRatio > 1 else { throw ValidationError("--max-price-ratio is a factor above 1 (or 0 to switch the check off)") }
        guard (0...100).contains(maxItemDrop) else { throw ValidationError("--max-item-drop is a percentage from 0 to 100") }
        guard duplicateStockMinItems >= 0 else { throw ValidationError("--duplicate-stock-min-items cannot be negative") }
    }

    func run() throws {
        // Before any file is opened: a root run must not leave root-owned files in the service's folder.
        if asOwner { try ServiceUser.become(ownerOf: snapshots) } else if !dryRun { try ServiceUser.require(snapshots: snapshots) }
        // A live status line only where someone watches: text logs on a terminal.
        let statusLine = output.logFormat == .text && !quiet && isatty(STDERR_FILENO) == 1 ? TerminalStatusLine() : nil
        output.bootstrapLogging(statusLine: statusLine, level: quiet ? .error : .info)
        let started = Date()
        var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots, mappingsDirectory: mappings ?? "mappings",
                                    dryRun: dryRun, retention: keep, now: started, asOf: asOf?.date)
        options.mappingsDirectoryRequired = mappings != nil
        options.importerVersion = importerVersion
        if let threads { options.parseThreads = threads }
        options.gates = QualityGates(maxOfferDropPercent: maxOfferDrop, maxPharmacyDropPercent: maxPharmacyDrop,
                                     maxRejectRatePercent: maxRejectRate ?? 5)
        options.gates.rejectRateFromCommandLine = maxRejectRate != nil
        options.gates.maxPharmacyRisePercent = maxPharmacyRise
        options.gates.maxUnregisteredRisePercent = maxUnregisteredRise
        options.gates.minFreshSharePercent = minFreshShare
        options.force = force
        options.maxStaleDays = maxStaleDays
        options.feedTimeout = feedTimeout
        options.fullCheck = fullCheck
        options.firstNight = firstNight
        options.historyDays = historyDays
        options.currency = currency.code
        options.checks = StockDataChecks(maxPriceRatio: maxPriceRatio, maxItemDropPercent: maxItemDrop, duplicateMinItems: duplicateStockMinItems)

        // The version's page is written before current switches; the run's end writes it again with the final facts.
        let pageFacts = (verbose: verbose, dryRun: dryRun, version: importerVersion)
        options.reportPage = { report in
            let formatter = ReportFormatter(verbose: pageFacts.verbose)
            let facts = RunReportDocument.Run(importerVersion: pageFacts.version, startedAt: started, finishedAt: Date(),
                                              exitStatus: 0, error: nil, dryRun: pageFacts.dryRun)
            let page = HTMLRunReport(report: report, run: facts, verdict: formatter.verdict(report, elapsed: Date().timeIntervalSince(started)))
            return Data(try page.render().utf8)
        }
        let logger = Logger(label: "ingest")
        let events = output.logFormat == .json ? RunEvents(logger: logger) : nil
        let run = ImportRun(options: options, logger: logger)
        let display = ProgressDisplay(mode: events.map { _ in .events(logger) } ?? statusLine.map { .terminal($0) } ?? .silent)
        run.progress = { display.update($0) }
        statusLine?.start()
        var result: RunReport?
        var failure: Error?
        var status = ExitStatus.success
        let outcome = Result { try run.run() }
        // The status line goes before anything else is printed.
        statusLine?.finish()
        do {
            let report = try outcome.get()
            result = report
            switch report.blocked {
            case .emptyResult?, .noStockFeed?: status = .emptyResult
            case .gates?: status = .gateFailed
            case nil: status = dryRun && detailedExitcode && !report.nothingNew ? .wouldChange : .success
            }
        } catch {
            failure = error
            status = Self.status(for: error)
            if let events {
                events.failed(error, status: status, started: started, finished: Date())
            } else {
                printError("ingest: \(error)")
            }
        }
        let formatter = ReportFormatter(verbose: verbose)
        // The HTML pages first, so that the text report can point at them.
        var pages: [String] = []
        if let version = result?.publishedVersion { pages.append(SnapshotDirectory(path: snapshots).reportPath(version)) }
        if let html { pages.append(html) }
        var written: [String] = []
        for path in pages {
            let facts = runFacts(started: started, status: status, failure: failure, version: options.importerVersion)
            let verdict = result.map { formatter.verdict($0, elapsed: facts.finishedAt.timeIntervalSince(started)) } ?? "FAILED (exit \(status.rawValue)): \(status.meaning)"
            do {
                try HTMLRunReport(report: result, run: facts, verdict: verdict).write(to: path)
                written.append(path)
            } catch {
                outputFailed("the HTML report", path, error, result, &status)
            }
        }
        if let result {
            let elapsed = Date().timeIntervalSince(started)
            let text = quiet ? formatter.attention(result, elapsed: elapsed) : formatter.format(result, elapsed: elapsed, htmlReports: written)
            // `--report -` keeps stdout for the JSON alone.
            if self.report == "-" { printError(text, terminator: "") } else if !text.isEmpty { print(ReportColours.apply(text), terminator: "") }
        }
        // The outputs come after the publish: failing them must not read as a failed run, nor pass silently.
        if let path = output.metricsFile {
            do { try RunMetrics(startedAt: started, finishedAt: Date(), exitCode: status.rawValue, report: result).write(to: path) } catch {
                outputFailed("the metrics file", path, error, result, &status)
            }
        }
        // Last, so that its exit status is the process's (unless this very write fails: then exit 5 says so).
        if let path = self.report {
            let facts = runFacts(started: started, status: status, failure: failure, version: options.importerVersion)
            do {
                let document = try RunReportDocument(result, run: facts).encoded()
                if path == "-" { FileHandle.standardOutput.write(document + Data("\n".utf8)) } else { try OutputFile.write(document, to: path) }
            } catch {
                outputFailed("the report", path, error, result, &status)
            }
        }
        if let events {
            let finished = Date()
            if let result {
                events.finished(result, status: status, verdict: formatter.verdict(result, elapsed: finished.timeIntervalSince(started)),
                                started: started, finished: finished)
            } else {
                events.finished(status: status, verdict: "FAILED (exit \(status.rawValue)): \(status.meaning)", dryRun: dryRun, started: started, finished: finished)
            }
        }
        if status != .success { throw status.exitCode }
    }

    /// The run itself, as the JSON and HTML reports state it, finished now.
    private func runFacts(started: Date, status: ExitStatus, failure: Error?, version: String) -> RunReportDocument.Run {
        RunReportDocument.Run(importerVersion: version, startedAt: started, finishedAt: Date(),
                              exitStatus: Int(status.rawValue), error: failure.map { "\($0)" }, dryRun: dryRun)
    }

    /// Says what was published (or not) and what could not be written; exit 5 unless the run already failed.
    private func outputFailed(_ what: String, _ path: String, _ error: Error, _ report: RunReport?, _ status: inout ExitStatus) {
        let done = report?.publishedVersion.map { "the snapshot \($0) was published" } ?? "nothing was published by this run"
        let message = "\(done), but \(what) could not be written to \(path): \(error)"
        if output.logFormat == .json {
            Logger(label: "ingest").error("output not written", metadata: ["event": "output_failed", "path": "\(path)", "error": "\(message)"])
        } else {
            printError("ingest: \(message)")
        }
        if status == .success { status = .outputNotWritten }
    }

    /// The exit code for each kind of failure (see `ExitStatus`).
    static func status(for error: Error) -> ExitStatus {
        switch error {
        case let error as ImportError:
            switch error {
            case .feedsDirectoryMissing, .mappingsDirectoryMissing: return .inputMissing
            case .configuration: return .configuration
            case .currentUnreadable: return .integrityFailure
            }
        case is SnapshotLock.Held: return .locked
        case is Quarantine.QuarantineUnreadable: return .integrityFailure
        case is SnapshotPublisher.IntegrityFailure: return .integrityFailure
        case let error as POSIXFailure:
            return error.isCannotCreate ? .cannotWrite : .ioError
        case let error as SQLiteError:
            return error.isDiskFull ? .ioError : (error.isCannotWrite ? .cannotWrite : .ioError)
        default: return .internalError
        }
    }
}
