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

    public init(options: ImportOptions, catalog: AdapterCatalog? = nil, logger: Logger = Logger(label: "ingest")) {
        self.options = options
        self.catalog = catalog
        self.logger = logger
    }

    public func run() throws -> RunReport {
        var report = RunReport(dryRun: options.dryRun)
        let catalog: AdapterCatalog
        if let given = self.catalog {
            catalog = given
        } else {
            do { catalog = try AdapterCatalog.load(mappingsDirectory: options.mappingsDirectory) } catch {
                throw ImportError.configuration(error.description)
            }
        }
        let inventory = try FeedInventory(directory: options.feedsDirectory)
        let directory = SnapshotDirectory(path: options.snapshotsDirectory)

        // Classify every file before anything is built: an ambiguous file
        // is a configuration error and must stop the run early.
        var stockCandidates: [StockFeedPlan.Candidate] = []
        var registryFiles: [FeedFile] = []
        for entry in inventory.entries {
            guard let file = entry.file else {
                var skipped = FeedResult(file: entry.name, size: 0, sha256: "", kind: nil, adapter: nil, outcome: .skipped)
                skipped.message = entry.skipped
                report.feeds.append(skipped)
                continue
            }
            let claim: AdapterCatalog.Claim
            do { claim = try catalog.claim(file) } catch { throw ImportError.configuration(error.description) }
            switch claim {
            case .stock(let adapter):
                stockCandidates.append(.init(file: file, adapter: adapter, header: try? adapter.readHeader(file)))
            case .pharmacyRegistry:
                registryFiles.append(file)
            case .unrecognised:
                var unrecognised = FeedResult(file: file.name, size: file.size, sha256: PharmacyFeedParser.digest(file.path),
                                              kind: nil, adapter: nil, outcome: .unrecognised)
                unrecognised.message = "no adapter recognises this file"
                report.feeds.append(unrecognised)
            }
        }

        // The lock comes before any write to the snapshots directory; a dry run writes nothing there.
        var lock: SnapshotLock?
        let stagingPath: String
        let scratchDirectory: String?
        if options.dryRun {
            let scratch = NSTemporaryDirectory() + "ingest-dry-run-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            scratchDirectory = scratch
            stagingPath = "\(scratch)/dry-run.sqlite"
        } else {
            try directory.create()
            lock = try SnapshotLock(directory: directory)
            directory.removeAbandonedFiles()
            scratchDirectory = nil
            stagingPath = try directory.makeStagingFile()
        }
        defer {
            if let scratchDirectory { try? FileManager.default.removeItem(atPath: scratchDirectory) }
            withExtendedLifetime(lock) {}
        }

        do {
            let version = options.dryRun ? "dry-run" : directory.nextVersion(now: options.now)
            let registry = loadRegistry(registryFiles, with: catalog.registry, report: &report)
            let writer = try SnapshotWriter(path: stagingPath)
            try load(StockFeedPlan(stockCandidates), registry: registry, writer: writer, report: &report)
            try writer.writeMeta([
                "schema_version": String(SnapshotSchema.version),
                "snapshot_version": version,
                "created_at": Self.utcTimestamp(options.now),
                "importer_version": options.importerVersion,
            ])
            try writer.finish()
            report.rowCounts = try writer.rowCounts()
            writer.close()
            report.feeds.sort { $0.file.utf8.lexicographicallyPrecedes($1.file.utf8) }
            report.rejects.sort { ($0.file, $0.line) < ($1.file, $1.line) }

            if report.rowCounts["offers", default: 0] == 0 { report.blocked = .emptyResult }
            if options.dryRun || report.blocked != nil {
                if !options.dryRun { unlink(stagingPath) }
                return report
            }
            var publisher = SnapshotPublisher(directory: directory, retention: options.retention)
            publisher.faultInjector = faultInjector
            let finished = report
            _ = try publisher.publish(stagingPath: stagingPath, .init(
                version: version,
                manifest: { snapshot in self.manifest(for: finished, version: version, directory: directory, snapshot: snapshot) },
                rejects: report.rejects, warnings: report.warnings))
            report.publishedVersion = version
            report.snapshotPath = directory.snapshotPath(version)
            logger.info("published", metadata: ["version": "\(version)"])
            return report
        } catch {
            if !options.dryRun { unlink(stagingPath) }
            throw error
        }
    }

    /// Registry rows by pharmacy id; every registry file's counts go to the report.
    private func loadRegistry(_ files: [FeedFile], with adapter: PharmacyRegistryAdapter, report: inout RunReport) -> [String: PharmacyRecord] {
        var registry: [String: PharmacyRecord] = [:]
        for file in files {
            var output = adapter.parse(file)
            if output.failure != nil { output = output.rejectingAll() }
            var result = FeedResult(file: file.name, size: file.size, sha256: PharmacyFeedParser.digest(file.path),
                                    kind: FeedKind.pharmacyRegistry.rawValue, adapter: adapter.name,
                                    outcome: output.failure == nil ? .loaded : .rejected)
            if let failure = output.failure { result.message = "\(failure.reason) at line \(failure.line): \(failure.message)" }
            result.count(output)
            report.feeds.append(result)
            report.rejects += output.rejects
            for record in output.records where registry[record.id] == nil {
                registry[record.id] = record
            }
        }
        return registry
    }

    /// Parses stock feeds on the parse threads and writes them here, in plan order.
    private func load(_ plan: StockFeedPlan, registry: [String: PharmacyRecord], writer: SnapshotWriter, report: inout RunReport) throws {
        let queue = OrderedWorkQueue<PharmacyFeedParser.Result>(count: plan.tasks.count, window: options.parseThreads * 2)
        let parser = PharmacyFeedParser()
        let tasks = plan.tasks
        let threads = queue.start(threads: options.parseThreads) { index in parser.parse(tasks[index]) }
        defer {
            queue.cancel()
            threads.wait()
        }
        var items = ItemCatalog()
        var pharmacies: [PharmacyRow] = []
        while let result = queue.take() {
            report.feeds += result.feeds
            report.rejects += result.rejects
            report.warnings += result.warnings
            guard let header = result.header, let pharmacyID = result.pharmacyID else { continue }
            try writer.writeOffers(pharmacyID: pharmacyID, result.offers.map {
                OfferRow(aptcode: $0.aptcode, priceCents: $0.priceCents, quantity: $0.quantity)
            })
            for offer in result.offers { items.add(offer) }
            pharmacies.append(pharmacyRow(header, offers: result.offers.count, registry: registry, report: &report))
        }
        try writer.writeItems(items.sortedRows())
        try writer.writePharmacies(pharmacies)
    }

    private func pharmacyRow(_ header: StockFeedHeader, offers: Int, registry: [String: PharmacyRecord], report: inout RunReport) -> PharmacyRow {
        let refresh = header.exportedAt.iso8601
        if let known = registry[header.pharmacyID] {
            return PharmacyRow(id: known.id, name: known.name, chainID: known.chainID, region: known.region,
                               address: known.address, phone: known.phone, openHours: known.openHours,
                               latitude: known.latitude, longitude: known.longitude,
                               lastRefresh: refresh, itemCount: offers, stale: false)
        }
        report.warnings.append(Warning(
            file: "", line: 0, key: header.pharmacyID, code: .unknownPharmacy,
            message: "pharmacy \(header.pharmacyID) is not in the registry; loaded with its feed's name and region UNKNOWN"))
        return PharmacyRow(id: header.pharmacyID, name: header.pharmacyName ?? header.pharmacyID, chainID: header.chainID,
                           region: "UNKNOWN", address: nil, phone: nil, openHours: nil, latitude: nil, longitude: nil,
                           lastRefresh: refresh, itemCount: offers, stale: false)
    }

    private func manifest(for report: RunReport, version: String, directory: SnapshotDirectory, snapshot: Manifest.SnapshotFile) -> Manifest {
        Manifest(
            version: version, schemaVersion: SnapshotSchema.version, createdAt: Self.utcTimestamp(options.now),
            importerVersion: options.importerVersion,
            inputs: report.feeds.map { feed in
                Manifest.Input(
                    file: feed.file, size: feed.size, sha256: feed.sha256, kind: feed.kind, adapter: feed.adapter,
                    outcome: feed.outcome.rawValue, pharmacyId: feed.pharmacyID, exportedAt: feed.exportedAt,
                    read: feed.read, accepted: feed.accepted, rejected: feed.rejected,
                    rejectsByReason: Dictionary(uniqueKeysWithValues: feed.rejectsByReason.map { ($0.key.rawValue, $0.value) }),
                    message: feed.message)
            },
            rowCounts: report.rowCounts,
            rejectCounts: Dictionary(uniqueKeysWithValues: report.rejectCounts.map { ($0.key.rawValue, $0.value) }),
            warningCounts: Dictionary(uniqueKeysWithValues: report.warningCounts.map { ($0.key.rawValue, $0.value) }),
            snapshot: snapshot, rejectsFile: directory.rejectsName(version), warningsFile: directory.warningsName(version),
            forced: false)
    }

    static func utcTimestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
