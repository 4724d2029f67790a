import Foundation
import IngestAdapters
import IngestCore
import IngestSnapshot

/// `ingest check FILE…`: the import's own per-file judgement without a
/// snapshot. Files are classified, chain files split, stock feeds planned
/// per pharmacy and parsed with the same rules (reject rate, dates in the
/// future, superseded feeds), reference files loaded as a run loads them;
/// so a file gets the outcome and counts the import would give it. Nothing
/// is compared with `current` (there is none here), and records are
/// counted, not kept.
public struct FeedCheck {
    public var gates = QualityGates()
    public var asOf = Date()
    /// The snapshot currency the files are judged against (`--currency`).
    public var currency = "EUR"

    public init() {}

    /// A report of the files: one line each (one per pharmacy for a chain file), rejects and warnings.
    public func run(files: [String], catalog: AdapterCatalog, rules: PatientPriceRules?) throws -> RunReport {
        var report = RunReport(dryRun: true)
        let asOfTime = ExportTimestamp.tallinnTime(asOf)
        let classified = FeedClassification(FeedInventory(files: files, runTime: asOfTime), catalog: catalog,
                                            referenceKinds: Set(BuiltInFormats.references.map { $0.kind }))
        report.feeds += classified.settled
        let reference = try ReferenceData.load(classified, kinds: BuiltInFormats.references, runDate: asOfTime.localDate, previous: nil,
                                               maxRejectRatePercent: gates.maxRejectRatePercent,
                                               report: &report)

        report.cleanedUp = ScratchDirectory.removeAbandoned()
        let scratch = try ScratchDirectory(purpose: "check")
        defer { withExtendedLifetime(scratch) {} }
        report.spillJournals(to: scratch.path + "/")
        let chains = try ChainFileSplitter(spillPrefix: "\(scratch.path)/part-", threads: 1).split(classified.chains)
        report.feeds += chains.settled
        try report.rejects += chains.rejects
        try report.warnings += chains.warnings

        let pricer = TierPricer(rules: rules ?? ((classified.references[.reimbursementList] ?? []).isEmpty ? nil : PatientPriceRules.statutory),
                                catalog: reference.reimbursement)
        let parser = PharmacyFeedParser(check: { pricer.problem(for: $0) }, gates: gates, asOf: asOfTime, currency: currency, spillPrefix: scratch.path + "/")
        for (index, task) in StockFeedPlan(classified.stock + chains.candidates).tasks.enumerated() {
            let result = parser.parse(task, index: index)
            result.offers.discard()
            if let failure = result.failure { throw failure }
            report.feeds += result.feeds
            try report.rejects += result.rejects
            try report.warnings += result.warnings
            result.rejects.discard()
            result.warnings.discard()
        }
        report.sortForReading()
        return report
    }

    /// Whether a file would not be loaded at all: rejected whole, unrecognised or unreadable.
    public static func failed(_ report: RunReport) -> [FeedResult] {
        report.feeds.filter { [.rejected, .unrecognised, .skipped].contains($0.outcome) }
    }
}
