import Foundation
import IngestAdapters
import IngestCore
import IngestSnapshot
import Logging

/// One import: read the feeds folder, build a snapshot, publish it (or, in a
/// dry run, only report what would be published).
///
/// Threads: `options.parseThreads` parse threads work pharmacy by pharmacy
/// and hand finished, sorted feeds to the calling thread, the only one that
/// writes SQLite. The hand-over is bounded, so memory stays flat whatever
/// the number of feeds.
public final class ImportRun {
    public let options: ImportOptions
    /// Given by tests; otherwise built from the mappings directory at the start of `run()`.
    public let catalog: AdapterCatalog?
    private let logger: Logger
    /// Tests inject publish failures here.
    public var faultInjector: (@Sendable (SnapshotPublisher.Step) throws -> Void)?
    /// Told each phase as it begins, and the stock feeds' bytes and offers as they are written; on the writer thread.
    public var progress: ((RunProgress) -> Void)?

    /// The reference kinds, in load order: the built-in ones, or a test's
    /// (a kind is pluggable as a stock format is through `catalog`).
    let references: [any ReferenceSet.Type]
    /// The tables the snapshot gets: the core ones and those of `references`.
    let schema: SnapshotSchema

    public convenience init(options: ImportOptions, catalog: AdapterCatalog? = nil, logger: Logger = Logger(label: "ingest")) {
        self.init(options: options, catalog: catalog, references: BuiltInFormats.references, logger: logger)
    }

    init(options: ImportOptions, catalog: AdapterCatalog? = nil, references: [any ReferenceSet.Type], logger: Logger = Logger(label: "ingest")) {
        self.options = options
        self.catalog = catalog
        self.references = references
        schema = BuiltInFormats.schema(references)
        self.logger = logger
    }

    /// The run's date in Tallinn (`--as-of`), which picks the lists in force.
    var runDate: String { options.asOfTimestamp.localDate }

    /// Set-up, build, publish: configuration and the feeds folder read first
    /// (a bad mapping stops the run before any feed is parsed), then the
    /// staging area under the lock, the snapshot built there, and, unless
    /// this is a dry run or a gate blocks it, published.
    public func run() throws -> RunReport {
        var report = RunReport(dryRun: options.dryRun)
        let setup = try configure(&report)
        let staging = try stage(&report)
        defer { withExtendedLifetime(staging) {} }
        do {
            let version = options.dryRun ? "dry-run" : try staging.directory.nextVersion(now: options.now)
            var clock = PhaseClock(logger: logger, announce: progress)
            let built = try build(setup, in: staging, version: version, clock: &clock, report: &report)
            do {
                return try conclude(built, setup: setup, staging: staging, version: version, clock: &clock, report: &report)
            } catch {
                // The check's early scan reads the staging file, which is removed next.
                _ = built.offersScan?.wait()
                throw error
            }
        } catch {
            staging.discard(dryRun: options.dryRun)
            report.discardJournals()
            throw error
        }
    }

    /// After the build: nothing to publish (a dry run, a gate that blocks, the same data as current), or the publish.
    private func conclude(_ built: Built, setup: Setup, staging: Staging, version: String, clock: inout PhaseClock,
                          report: inout RunReport) throws -> RunReport {
        if report.blocked == nil, let previous = built.previous, try Self.holdsTheSameData(staging.path, as: previous, report: report) {
            report.nothingNew = true
            logger.info("nothing new to publish", metadata: ["event": "nothing_new", "current": "\(previous.version)"])
            if !options.dryRun { recordLedger(setup, report: report, version: previous.version, in: staging.directory) }
        }
        if options.dryRun || report.blocked != nil || report.nothingNew {
            _ = built.offersScan?.wait() // it reads the file discarded here
            staging.discard(dryRun: options.dryRun)
            report.discardJournals()
            report.phases = clock.laps
            return report
        }
        clock.begin("checking and publishing")
        try publish(built, from: staging, version: version, report: &report)
        recordLedger(setup, report: report, version: version, in: staging.directory)
        clock.lap("checked and published")
        report.phases = clock.laps
        return report
    }

    /// What the run is told before it reads a feed.
    struct Setup {
        var catalog: AdapterCatalog
        var files: FeedClassification
        var rules: PatientPriceRules?
        /// The ledger's entries of files left from earlier nights, not read tonight.
        var ledgerKept: [FeedLedger.Entry] = []
        /// Tonight's files' modification times, by name.
        var modified: [String: Int64] = [:]
    }

    /// The adapters, the price rules and the feeds folder's files; a bad
    /// mapping or rules file, or a named folder missing, stops the run here.
    private func configure(_ report: inout RunReport) throws -> Setup {
        let catalog: AdapterCatalog
        let configuredRules: PatientPriceRules?
        let mappingsPresent = Self.isDirectory(options.mappingsDirectory)
        if options.mappingsDirectoryRequired, !mappingsPresent {
            throw ImportError.mappingsDirectoryMissing(options.mappingsDirectory)
        }
        do {
            catalog = try self.catalog ?? BuiltInFormats.catalog(mappingsDirectory: options.mappingsDirectory, references: references)
            configuredRules = try PatientPriceRulesLoader.load(directory: options.mappingsDirectory)
        } catch let error as MappingError {
            throw ImportError.configuration(error.description)
        }
        let inventory: FeedInventory
        do {
            inventory = try FeedInventory(directory: options.feedsDirectory, runTime: options.asOfTimestamp)
        } catch ImportError.feedsDirectoryMissing {
            // An unmounted or vanished feeds folder is a night whose feeds did not
            // come: the run goes on to say so (exit 65, metrics), as for an empty one.
            report.feedsFolderMissing = true
            inventory = FeedInventory()
        }
        let snapshots = SnapshotDirectory(path: options.snapshotsDirectory)
        let quarantine = try Quarantine.load(from: snapshots)
        // Files a published night judged for good are not read again (issue 44): counted, not listed.
        let ledger = FeedLedger.load(from: snapshots)
        let current = snapshots.currentVersion()
        var kept: [FeedLedger.Entry] = []
        let unread = inventory.without { entry in
            guard let file = entry.file, let modified = entry.modified,
                  let judged = ledger.judged(name: entry.name, size: file.size, modified: modified, before: runDate, current: current),
                  PharmacyFeedParser.digest(file) == judged.sha256 else { return false }
            kept.append(judged)
            return true
        }
        report.earlierNightFiles = kept.map(\.name)
        report.feeds += kept.map(ledger.line)
        let files = FeedClassification(unread, catalog: catalog, referenceKinds: Set(references.map { $0.kind }), quarantine: quarantine)
        report.feeds += files.settled
        var rules = configuredRules
        if rules == nil, !(files.references[.reimbursementList] ?? []).isEmpty || !mappingsPresent {
            // A missing rules file must not stop tonight's prices: the statute's
            // periods (FEEDS.md §7) stand in, and the report says so.
            rules = PatientPriceRules.statutory
            let missing = mappingsPresent ? "\(PatientPriceRulesLoader.fileName) is missing from \(options.mappingsDirectory)"
                : "there is no mappings folder \(options.mappingsDirectory) (no mapped feed can be recognised)"
            try report.warnings.append(Warning(file: PatientPriceRulesLoader.fileName, line: 0, key: "", code: .defaultPriceRules,
                                               message: "\(missing); using the built-in fee periods of FEEDS.md §7"))
        }
        let modified = Dictionary(unread.entries.compactMap { entry in entry.modified.map { (entry.name, $0) } }, uniquingKeysWith: { first, _ in first })
        return Setup(catalog: catalog, files: files, rules: rules, ledgerKept: kept, modified: modified)
    }

    /// Where the snapshot is built: a staging file in the snapshots folder,
    /// under its lock, or a dry run's scratch folder (nothing is written to
    /// the snapshots folder). What killed runs left is removed first.
    struct Staging {
        let directory: SnapshotDirectory
        let path: String
        let lock: SnapshotLock?
        let scratch: ScratchDirectory?

        /// The night's changeset from `current`, beside the staging file until published.
        var changesetPath: String { path + ".changeset" }

        /// Removes what a run that publishes nothing leaves (a dry run's scratch folder goes by itself).
        func discard(dryRun: Bool) {
            guard !dryRun else { return }
            unlink(path)
            unlink(changesetPath)
        }
    }

    private func stage(_ report: inout RunReport) throws -> Staging {
        let directory = SnapshotDirectory(path: options.snapshotsDirectory)
        report.cleanedUp = ScratchDirectory.removeAbandoned(in: options.scratchParent)
        let staging: Staging
        if options.dryRun {
            let scratch = try ScratchDirectory(purpose: "dry-run", in: options.scratchParent)
            staging = Staging(directory: directory, path: "\(scratch.path)/dry-run.sqlite", lock: nil, scratch: scratch)
        } else {
            // The lock comes before any write to the snapshots directory.
            try directory.create()
            let lock = try SnapshotLock(directory: directory)
            report.cleanedUp += try directory.removeAbandonedFiles()
            staging = Staging(directory: directory, path: try directory.makeStagingFile(), lock: lock, scratch: nil)
        }
        report.spillJournals(to: staging.path + ".")
        return staging
    }

    /// Whether the built snapshot is `previous` again (SNAPSHOT.md: a re-run
    /// publishes nothing new). Any stock feed loaded tonight changes its
    /// pharmacy's row, so only a night that loaded none is compared, row by row.
    static func holdsTheSameData(_ staging: String, as previous: PreviousSnapshot, report: RunReport) throws -> Bool {
        guard !report.feeds.contains(where: { $0.kind == FeedKind.stock.rawValue && $0.outcome == .loaded }) else { return false }
        return try SnapshotContent.difference(old: previous.path, new: staging) == nil
    }

    /// What a built snapshot brings to its publish.
    struct Built {
        var previous: PreviousSnapshot?
        var offersDigest: TableDigest
        /// The changeset from `current` made by the night; nil on a first night or across schemas.
        var changeset: NightChangeset.Made?
        /// The publish check's scan of `offers`, started once the load committed; nil on a dry run.
        var offersScan: EarlyTableScan?
    }

    /// Reads every feed and writes the snapshot at `staging.path`; judges it
    /// against current (gates), and for a dry run computes the changes.
    private func build(_ setup: Setup, in staging: Staging, version: String, clock: inout PhaseClock,
                       report: inout RunReport) throws -> Built {
        let directory = staging.directory
        clock.begin("reading reference data")
        // Yesterday's snapshot: carry-over source and the gates' yardstick.
        let previous: PreviousSnapshot?
        if options.firstNight {
            previous = nil
            if directory.currentLink() != .absent {
                report.ignoredCurrent = directory.currentVersion() ?? "(damaged)"
                try report.warnings.append(Warning(file: "", line: 0, key: directory.currentVersion() ?? "current", code: .firstNight,
                                                   message: "--first-night: current is not read; nothing is carried over from it and no quality gate or check compares against it"))
            }
        } else {
            // A damaged history stops the night (SNAPSHOT.md); --first-night is the operator's way past it.
            do { previous = try PreviousSnapshot.open(directory) } catch { throw ImportError.currentUnreadable(error.description) }
        }
        do {
            return try build(setup, on: previous, in: staging, version: version, clock: &clock, report: &report)
        } catch {
            // The reference data read while current's quick_check ran: if current is damaged, that is what stopped the night.
            do { try previous?.confirm() } catch { throw ImportError.currentUnreadable(error.description) }
            throw error
        }
    }

    /// The build over `previous` (nil on a first night), whose quick_check may still be running.
    private func build(_ setup: Setup, on previous: PreviousSnapshot?, in staging: Staging, version: String, clock: inout PhaseClock,
                       report: inout RunReport) throws -> Built {
        let stagingPath = staging.path
        let files = setup.files
        report.previousVersion = previous?.version
        if let previous, let held = try previous.currency(), held != options.currency {
            // Carried prices are minor units of `current`'s currency: under another they would change meaning.
            throw ImportError.configuration("--currency \(options.currency), but current \(previous.version) holds prices in \(held); a snapshot never mixes currencies. Run with --currency \(held), or with --first-night to start a history in \(options.currency)")
        }
        let reference = try ReferenceData.load(files, kinds: references, runDate: runDate, previous: previous,
                                               maxRejectRatePercent: options.gates.maxRejectRatePercent, currency: options.currency,
                                               report: &report)
        if reference.reimbursement.isEmpty, references.contains(where: { $0 == ReimbursementSet.self }) {
            // Once for the night, not once per offer (SNAPSHOT.md "Money in other currencies").
            try report.warnings.append(Warning(file: "", line: 0, key: FeedKind.reimbursementList.rawValue, code: .noReimbursementList,
                                               message: "no reimbursement list in force in \(options.currency) (none tonight, none to keep from current): every tier price is empty"))
        }
        // Before the first phase ends: a damaged current stops the night at once, its reason the run's only words.
        try previous?.confirm()
        clock.lap("reference data")
        let asOf = options.asOfTimestamp
        let current = try previous?.currentStock(latestValid: asOf.epochSeconds + PharmacyFeedParser.futureTolerance) ?? [:]
        let splitter = ChainFileSplitter(spillPrefix: stagingPath + ".part-", threads: options.parseThreads, timeout: options.feedTimeout)
        defer { splitter.removeSpills() }
        if !files.chains.isEmpty { clock.begin("splitting chain files") }
        let settled = SettledChainFiles(files.chains, previous: previous, current: current, currency: options.currency)
        let chains = try splitter.split(settled.toSplit)
        report.feeds += chains.settled
        try report.rejects += chains.rejects
        try report.warnings += chains.warnings
        if !files.chains.isEmpty { clock.lap("chain files split") }
        let plan = StockFeedPlan(files.stock + chains.candidates + settled.parts, current: current)
        let writer = try SnapshotWriter(path: stagingPath, schema: schema)
        let pricer = TierPricer(rules: setup.rules, catalog: reference.reimbursement)
        clock.begin("parsing stock feeds")
        try load(plan, reference: reference, pricer: pricer, previous: previous, writer: writer, stagingPath: stagingPath, report: &report)
        clock.lap("stock feeds parsed and written")
        clock.begin("building indexes")
        var meta = [
            "schema_version": String(SnapshotSchema.version),
            "snapshot_version": version,
            "created_at": Self.utcTimestamp(options.now),
            "as_of": options.asOfTimestamp.iso8601,
            "importer_version": options.importerVersion,
            "run_date": runDate,
            "currency": options.currency,
        ]
        meta.merge(reference.validFrom) { own, _ in own }
        try writer.writeMeta(meta)
        try writer.commitLoad()
        // A dry run publishes nothing, so it checks nothing.
        let offersScan = options.dryRun ? nil
            : try EarlyTableScan(path: stagingPath, table: "offers", schema: schema, writerDigest: true)
        do {
            return try finish(writer, previous: previous, offersScan: offersScan, stagingPath: stagingPath, staging: staging,
                              clock: &clock, report: &report)
        } catch {
            // It reads the staging file, which the failure removes next.
            _ = offersScan?.wait()
            throw error
        }
    }

    /// The snapshot's indexes, history and derived tables after the load, and its comparison with current.
    private func finish(_ writer: SnapshotWriter, previous: PreviousSnapshot?, offersScan: EarlyTableScan?, stagingPath: String,
                        staging: Staging, clock: inout PhaseClock, report: inout RunReport) throws -> Built {
        try writer.finish()
        clock.lap("indexes built")
        // Its own lap, within the indexes' phase: a night's cost of carrying the history (issue 33).
        try PriceHistory.write(to: writer, previous: previous, asOf: options.asOfTimestamp, keepDays: options.historyDays)
        try LoadedExports.write(to: writer, previous: previous, tonight: LoadedExports.loaded(in: report), asOf: options.asOfTimestamp,
                                keepDays: options.historyDays)
        clock.lap("price history written")
        // FTS5's integrity-check is an INSERT: on the writer's connection, before it closes.
        if let problems = try PublishCheck.searchIndexProblems(in: writer.database) {
            throw SnapshotPublisher.IntegrityFailure(findings: problems)
        }
        let offersDigest = writer.offersDigest
        clock.lap("search index checked")
        report.rowCounts = try writer.rowCounts()
        report.pharmacyPositions = try PharmacyPosition.read(from: writer.database)
        // Pharmacies the registry does not know are written with region UNKNOWN.
        let unregistered = Int(try writer.database.scalarInt("SELECT count(*) FROM pharmacies WHERE region = 'UNKNOWN'") ?? 0)
        try writer.close()
        report.sortForReading()
        judge(&report, previous: previous, unregistered: unregistered)
        // Every run that has a baseline says what it changes (the dry run's
        // report and every HTML report show it), from the same merge that
        // writes the changeset for offline clients.
        var changeset: NightChangeset.Made?
        if let previous {
            clock.begin("comparing with current")
            (report.diff, changeset) = try NightChangeset.make(previous: previous, staging: stagingPath, path: staging.changesetPath)
            clock.lap("compared with current")
        }
        return Built(previous: previous, offersDigest: offersDigest, changeset: changeset, offersScan: offersScan)
    }

    /// Checks and publishes the staging file with its manifest, rejects and warnings.
    private func publish(_ built: Built, from staging: Staging, version: String, report: inout RunReport) throws {
        let directory = staging.directory
        var publisher = SnapshotPublisher(directory: directory, retention: options.retention)
        publisher.faultInjector = faultInjector
        let finished = report
        let carriedInputs = report.carriedOver.filter { !$0.dropped }.compactMap { carry -> Manifest.Input? in
            guard var input = built.previous?.input(for: carry) else { return nil }
            input.outcome = FeedOutcome.carriedOver.rawValue
            input.message = "kept from version \(carry.fromVersion)" + (carry.kind == .pharmacy ? ": tonight's feed is missing or rejected" : "")
            return input
        }
        var publication = SnapshotPublisher.Publication(
            version: version,
            manifest: { snapshot in
                var manifest = self.manifest(for: finished, version: version, directory: directory, snapshot: snapshot)
                manifest.inputs += carriedInputs
                return manifest
            },
            rejects: { try finished.rejects.save(to: $0) }, warnings: { try finished.warnings.save(to: $0) })
        publication.offers = built.offersDigest
        publication.scanned = built.offersScan.map { [$0] } ?? []
        publication.changeset = built.changeset.map { SnapshotPublisher.Publication.Changeset(path: $0.path, from: $0.from, written: $0.written) }
        publication.datasetteMetadata = try DatasetteMetadata.encoded(schema: schema, version: version)
        if let render = options.reportPage {
            var published = finished
            published.publishedVersion = version
            published.snapshotPath = directory.snapshotPath(version)
            let page = published
            publication.reportPage = { try render(page) }
        }
        publication.fullCheck = options.fullCheck
        _ = try publisher.publish(stagingPath: staging.path, publication)
        report.publishedVersion = version
        report.snapshotPath = directory.snapshotPath(version)
        logger.info("published", metadata: ["event": "published", "version": "\(version)"])
        // The version is live: a folder that cannot be listed now leaves the old versions for the next night's prune.
        do { try publisher.prune() } catch {
            logger.warning("old versions not pruned", metadata: ["event": "prune_failed", "error": "\(error)"])
        }
    }

    /// The quality gates: an empty result never publishes; a fall against
    /// current beyond the limits publishes only with --force.
    private func judge(_ report: inout RunReport, previous: PreviousSnapshot?, unregistered: Int) {
        let fresh = report.rowCounts["pharmacies", default: 0] - report.stalePharmacies
        // No stock file at all blocks even a re-run whose pharmacies a run of
        // this date loaded: the folder is empty or gone, whatever current holds.
        let stockFiles = report.feeds.contains { $0.kind == FeedKind.stock.rawValue }
        if fresh == 0 || !stockFiles {
            report.blocked = .noStockFeed(noStockFeedReason(report))
            return
        }
        if report.rowCounts["offers", default: 0] == 0 {
            report.blocked = .emptyResult
            return
        }
        guard let previous else { return }
        report.gates = options.gateCatalog.measure(NightCounts(
            offers: report.rowCounts["offers", default: 0], pharmacies: report.rowCounts["pharmacies", default: 0],
            freshPharmacies: fresh, unregisteredPharmacies: unregistered,
            currentOffers: previous.offerCount, currentPharmacies: previous.pharmacies.count,
            currentUnregisteredPharmacies: previous.pharmacies.values.filter { $0.region == "UNKNOWN" }.count))
        let failures = report.gates.filter { !$0.passed }.map(\.failure)
        guard !failures.isEmpty else { return }
        if options.force {
            report.forcedGates = failures
            logger.warning("quality gates overridden with --force", metadata: ["event": "gates_forced", "gates": .array(failures.map { .string($0.gate) })])
        } else {
            report.blocked = .gates(failures)
        }
    }

    /// Tonight's judgements, for the nights after: written once the night
    /// stands (published, or current found to hold the same data). A ledger
    /// not written only means tomorrow reads these files again: a warning in the log, not a failed night.
    private func recordLedger(_ setup: Setup, report: RunReport, version: String, in directory: SnapshotDirectory) {
        let ledger = FeedLedger.tonight(keeping: setup.ledgerKept, feeds: report.feeds, modified: setup.modified, night: runDate, version: version)
        do { try ledger.save(to: directory) } catch {
            logger.warning("feeds ledger not written", metadata: ["event": "ledger_not_written", "error": "\(error)"])
        }
    }

    /// Why no pharmacy is fresh tonight, from the feeds folder's side: the
    /// one line cron mail and the journal show first.
    private func noStockFeedReason(_ report: RunReport) -> String {
        let folder = options.feedsDirectory
        if report.feedsFolderMissing { return "feeds folder \(folder) does not exist or is not a directory (is it mounted?)" }
        if report.feeds.isEmpty { return "feeds folder \(folder) is empty" }
        let outcomes = Dictionary(grouping: report.feeds, by: \.outcome)
        let counts = FeedOutcome.allCases.compactMap { outcome in
            outcomes[outcome].map { "\($0.count) \(outcome == .loaded ? "loaded (not stock)" : outcome.rawValue)" }
        }
        let files = report.feeds.count == 1 ? "1 file" : "\(report.feeds.count) files"
        return "feeds folder \(folder) holds \(files), none a stock feed loaded tonight: \(counts.joined(separator: ", "))"
    }

    /// Parses stock feeds on the parse threads and writes them here, in plan
    /// order, then the items, pharmacies and reference tables.
    private func load(_ plan: StockFeedPlan, reference: ReferenceData, pricer: TierPricer, previous: PreviousSnapshot?,
                      writer: SnapshotWriter, stagingPath: String, report: inout RunReport) throws {
        let tasks = plan.tasks
        let timeout = options.feedTimeout
        let queue = OrderedWorkQueue<PharmacyFeedParser.Result>(count: tasks.count, window: options.parseThreads * 2, timeout: timeout) {
            PharmacyFeedParser.timedOut(tasks[$0], after: timeout)
        }
        // An unregistered id shaped like another column's value is a swapped column, not a new pharmacy.
        let registry = reference.registry
        let packageCodes = Set(reference[MedicineRegisterSet.self].packages.keys)
        let aptcodes = try previous?.aptcodes() ?? []
        let parser = PharmacyFeedParser(check: { header in
            if registry[header.pharmacyID] == nil,
               let problem = PharmacyIDShape.problem(header.pharmacyID, packageCodes: packageCodes, aptcodes: aptcodes) {
                return problem
            }
            return pricer.problem(for: header)
        }, gates: options.gates, asOf: options.asOfTimestamp, currency: options.currency, spillPrefix: stagingPath + ".")
        queue.start(threads: options.parseThreads) { index in parser.parse(tasks[index], index: index) }
        defer {
            queue.cancel()
            queue.wait()
        }
        let loader = try StockLoader(writer: writer, reference: reference, pricer: pricer, previous: previous,
                                 asOf: options.asOfTimestamp, maxStaleDays: options.maxStaleDays, checks: options.checks, gates: options.gateCatalog, force: options.force,
                                     spillPrefix: stagingPath + ".load-")
        // A chain part's file was read when it was split: its replay counts nothing here.
        let sizes = tasks.map { $0.candidates.reduce(Int64(0)) { $0 + ($1.part == nil ? $1.file.size : 0) } }
        let total = sizes.reduce(0, +)
        var done: Int64 = 0
        var offers = 0
        var index = 0
        while let result = queue.take() {
            let feedsBefore = report.feeds.count
            try report.absorb(loader.take(result))
            offers += report.feeds[feedsBefore...].reduce(0) { $0 + $1.accepted }
            done += sizes[index]
            index += 1
            progress?(RunProgress(phase: "parsing stock feeds", doneBytes: done, totalBytes: total, offers: offers))
        }
        try report.absorb(loader.finish())
        try reference.write(to: writer, kinds: references)
    }

    private func manifest(for report: RunReport, version: String, directory: SnapshotDirectory, snapshot: Manifest.SnapshotFile) -> Manifest {
        Manifest(
            version: version, schemaVersion: SnapshotSchema.version, createdAt: Self.utcTimestamp(options.now),
            importerVersion: options.importerVersion,
            inputs: report.feeds.map(\.manifestInput),
            rowCounts: report.rowCounts,
            rejectCounts: Dictionary(uniqueKeysWithValues: report.rejectCounts.map { ($0.key.rawValue, $0.value) }),
            warningCounts: Dictionary(uniqueKeysWithValues: report.warningCounts.map { ($0.key.rawValue, $0.value) }),
            snapshot: snapshot, rejectsFile: directory.rejectsName(version), warningsFile: directory.warningsName(version),
            forced: !report.forcedGates.isEmpty || report.checks.contains(where: \.forced),
            forcedGates: report.forcedGates.map(\.description)
                + report.checks.filter(\.forced).map { "check \($0.check): \($0.failed.joined(separator: ", ")) loaded with --force" },
            carriedOver: report.carriedOver.map {
                Manifest.CarriedOver(kind: $0.kind.rawValue, key: $0.key, fromVersion: $0.fromVersion,
                                     lastRefresh: $0.lastRefresh, dropped: $0.dropped, offers: $0.offers)
            },
            rejectSample: Dictionary(grouping: report.rejects, by: \.reason).keys.sorted().flatMap { reason in
                report.rejects.filter { $0.reason == reason }.prefix(Manifest.sampledPerReason)
            })
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    static func utcTimestamp(_ date: Date) -> String {
        MachineTime.utcSeconds(date)
    }
}
