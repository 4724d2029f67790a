import Foundation
import IngestCore
import IngestPipeline
import IngestSnapshot

/// What the HTML report shows, worked out in Swift so that the template
/// only places it: every figure formatted, every bar measured. Mustache
/// reads these values by reflection, which sees stored properties only:
/// every value the template names is stored, never computed.
struct RunReportPage {
    struct Fact { var label: String; var value: String; var figure: String }
    struct Bar { var label: String; var value: String; var width: String; var y: String; var textY: String }
    struct GateRow {
        var gate: String; var current: Int; var new: Int; var drop: String; var limit: Int
        var margin: String; var passed: Bool; var status: String
        /// The fall and the limit on a 0–100 % scale, in pixels of a 200 px track.
        var dropWidth: String; var limitX: String
    }
    struct CheckRow { var check: String; var limit: String; var evaluated: Int; var verdict: String; var closest: String; var passed: Bool }
    struct FeedRow {
        var file: String; var pharmacy: String; var adapter: String; var outcome: String; var detail: String
        var read: Int; var accepted: Int; var rejected: Int; var attention: Bool; var rank: Int
    }
    struct Sample { var place: String; var key: String; var field: String; var message: String }
    /// A reject reason or warning code: its count, its first sample in the table's row, the other samples folded under it.
    struct Group {
        var code: String; var count: Int; var first: Sample?; var others: [Sample]; var othersCount: Int; var hasOthers: Bool; var more: Int; var hasMore: Bool
    }
    struct CarryRow { var kind: String; var key: String; var detail: String; var dropped: Bool }
    struct MapView {
        var width: Int; var height: Int
        var points: [MapProjection.Point]
        var fresh: Int; var stale: Int; var unplaced: Int
    }
    struct HistogramBar {
        var label: String; var count: Int; var x: String; var y: String; var height: String; var labelX: String; var negative: Bool
        /// The bar's lower edge (`-20 %`), written under its left side; the first bar has none.
        var edge: String?; var edgeX: String
    }
    struct PriceChangeRow { var place: String; var item: String; var pharmacy: String; var old: String; var new: String; var delta: String; var percent: String }
    struct DiffView {
        var from: String
        var counts: [Fact]
        var histogram: [HistogramBar]
        var histogramTotal: Int
        var largest: [PriceChangeRow]
        var hasLargest: Bool
    }

    var title: String
    var verdict: String
    /// `published`, `dry`, `blocked` or `failed`: the verdict's colour.
    var verdictClass: String
    var error: String?
    var facts: [Fact]
    var totals: [Fact]
    var phases: [Bar]
    var phasesHeight: Int
    var hasPhases: Bool
    var gates: [GateRow]
    var hasGates: Bool
    var gatesNote: String
    var checks: [CheckRow]
    var hasChecks: Bool
    var feeds: [FeedRow]
    var hasFeeds: Bool
    var feedTotals: FeedRow
    var rejectGroups: [Group]
    var warningGroups: [Group]
    var hasRejectGroups: Bool
    var hasWarningGroups: Bool
    var rejectTotal: Int
    var warningTotal: Int
    var map: MapView?
    var carried: [CarryRow]
    var hasCarried: Bool
    var diff: DiffView?
    var noDiff: String

    init(report: RunReport?, run: RunReportDocument.Run, verdict: String, samplesPerReason: Int = 5) {
        let duration = run.finishedAt.timeIntervalSince(run.startedAt)
        title = report?.publishedVersion.map { "ingest run \($0)" } ?? (run.dryRun ? "ingest dry run" : "ingest run")
        self.verdict = verdict
        if run.error != nil {
            verdictClass = "failed"
        } else if report?.blocked != nil {
            verdictClass = "blocked"
        } else {
            verdictClass = report?.publishedVersion == nil ? "dry" : "published"
        }
        error = run.error
        facts = [
            Fact(label: "started", value: MachineTime.timestamp(run.startedAt), figure: "started_at"),
            Fact(label: "finished", value: MachineTime.timestamp(run.finishedAt), figure: "finished_at"),
            Fact(label: "duration", value: String(format: "%.1f s", duration), figure: "duration"),
            Fact(label: "exit status", value: String(run.exitStatus), figure: "exit_status"),
            Fact(label: "importer", value: run.importerVersion, figure: "importer_version"),
        ]
        if let report {
            facts.append(Fact(label: "compared against", value: report.baseline, figure: "baseline"))
            if let path = report.snapshotPath { facts.append(Fact(label: "snapshot", value: path, figure: "snapshot")) }
        }
        let counts = report?.rowCounts ?? [:]
        let stale = report?.stalePharmacies ?? 0
        totals = [
            Fact(label: "pharmacies", value: String(counts["pharmacies", default: 0]), figure: "pharmacies"),
            Fact(label: "fresh", value: String(counts["pharmacies", default: 0] - stale), figure: "fresh"),
            Fact(label: "stale", value: String(stale), figure: "stale"),
            Fact(label: "items", value: String(counts["items", default: 0]), figure: "items"),
            Fact(label: "offers", value: String(counts["offers", default: 0]), figure: "offers"),
            Fact(label: "rejects", value: String(report?.rejects.total ?? 0), figure: "rejects"),
            Fact(label: "warnings", value: String(report?.warnings.total ?? 0), figure: "warnings"),
        ]
        let phaseTimings = report?.phases ?? []
        let longest = max(phaseTimings.map(\.seconds).max() ?? 0, 0.001)
        phases = phaseTimings.enumerated().map { index, phase in
            Bar(label: phase.phase, value: String(format: "%.2f s", phase.seconds),
                width: String(format: "%.1f", max(1, phase.seconds / longest * 300)),
                y: String(index * 24), textY: String(index * 24 + 15))
        }
        phasesHeight = phaseTimings.count * 24
        hasPhases = !phaseTimings.isEmpty
        gates = (report?.gates ?? []).map { gate in
            let drop = Double(gate.dropTenths) / 10
            // The gate says how far inside its limit it stayed (a floor like the fresh share: how far above it).
            let margin = gate.marginPoints
            return GateRow(gate: gate.gate, current: gate.current, new: gate.new, drop: gate.dropPercent + " %", limit: gate.limitPercent,
                           margin: String(format: "%.1f points", margin), passed: gate.passed,
                           status: gate.passed ? "passed" : (report?.forcedGates.contains { $0.gate == gate.gate } == true ? "FORCED" : "FAILED"),
                           dropWidth: String(format: "%.1f", min(drop, 100) * 2), limitX: String(format: "%.1f", Double(gate.limitPercent) * 2))
        }
        hasGates = !gates.isEmpty
        switch report?.blocked {
        case .emptyResult?: gatesNote = "No offer survived: an empty snapshot is never published."
        case .noStockFeed(let why)?: gatesNote = "No stock feed was loaded (\(why)): yesterday's data is not published again as tonight's."
        default:
            gatesNote = report.map { "Compared against \($0.baseline)." } ?? "The run stopped before the gates."
        }
        checks = (report?.checks ?? []).filter { $0.evaluated > 0 }.map { check in
            CheckRow(check: check.check, limit: check.limit, evaluated: check.evaluated,
                     verdict: check.failed.isEmpty ? "passed" : (check.forced ? "FORCED" : "FAILED") + " for \(check.failed.joined(separator: ", "))",
                     closest: check.closest ?? "", passed: check.failed.isEmpty)
        }
        hasChecks = !checks.isEmpty
        feeds = (report?.feeds ?? []).map(Self.row).sorted { ($0.rank, $0.file, $0.pharmacy) < ($1.rank, $1.file, $1.pharmacy) }
        hasFeeds = !feeds.isEmpty
        feedTotals = FeedRow(file: "total", pharmacy: "", adapter: "", outcome: "", detail: "",
                             read: feeds.reduce(0) { $0 + $1.read }, accepted: feeds.reduce(0) { $0 + $1.accepted },
                             rejected: feeds.reduce(0) { $0 + $1.rejected }, attention: false, rank: 0)
        rejectTotal = report?.rejects.total ?? 0
        warningTotal = report?.warnings.total ?? 0
        rejectGroups = report.map { report in
            Self.groups(report.rejects, samples: samplesPerReason) { reject in
                Sample(place: "\(reject.file):\(reject.line)", key: reject.key, field: reject.field ?? "", message: reject.message)
            }
        } ?? []
        warningGroups = report.map { report in
            Self.groups(report.warnings, samples: samplesPerReason) { warning in
                Sample(place: warning.file.isEmpty ? "" : "\(warning.file):\(warning.line)", key: warning.key, field: "", message: warning.message)
            }
        } ?? []
        hasRejectGroups = !rejectGroups.isEmpty
        hasWarningGroups = !warningGroups.isEmpty
        if let positions = report?.pharmacyPositions, !positions.isEmpty {
            let projection = MapProjection()
            let points = projection.project(positions)
            map = MapView(width: Int(projection.width), height: Int(projection.height), points: points,
                          fresh: points.filter { !$0.stale }.count, stale: points.filter(\.stale).count,
                          unplaced: counts["pharmacies", default: 0] - points.count)
        } else {
            map = nil
        }
        carried = (report?.carriedOver ?? []).map { entry in
            switch (entry.kind, entry.dropped) {
            case (.pharmacy, false):
                return CarryRow(kind: "pharmacy", key: entry.key, detail: "\(entry.offers ?? 0) offers kept, stale since \(entry.lastRefresh ?? "?")", dropped: false)
            case (.pharmacy, true):
                return CarryRow(kind: "pharmacy", key: entry.key, detail: "dropped: no valid feed since \(entry.lastRefresh ?? "?")", dropped: true)
            case (.reference, _):
                return CarryRow(kind: "reference", key: entry.key, detail: "kept from \(entry.fromVersion): missing or rejected tonight", dropped: false)
            }
        }
        hasCarried = !carried.isEmpty
        diff = report?.diff.map(Self.diffView)
        noDiff = report?.previousVersion == nil ? "There was no current snapshot to compare with." : "The run stopped before the comparison."
    }

    /// Feeds that need a look (`FeedResult.needsAttention`) come first:
    /// rejected, then unrecognised, skipped, loaded with rejects, the rest.
    private static func row(_ feed: FeedResult) -> FeedRow {
        let rank: Int
        switch feed.outcome {
        case .rejected, .unreadable: rank = 0
        case .unrecognised: rank = 1
        case .skipped, .quarantined: rank = 2
        case .carriedOver: rank = 3
        case .loaded where feed.rejected > 0: rank = 4
        case .superseded: rank = 5
        case .loaded: rank = 6
        }
        let reasons = feed.rejectsByReason.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let detail = [feed.reason, feed.message, reasons.isEmpty ? nil : "rejected: " + reasons].compactMap { $0 }.joined(separator: "; ")
        return FeedRow(file: feed.file, pharmacy: feed.pharmacyID ?? "", adapter: feed.adapter ?? "", outcome: feed.outcome.rawValue,
                       detail: detail, read: feed.read, accepted: feed.accepted, rejected: feed.rejected, attention: feed.needsAttention, rank: rank)
    }

    private static func groups<Entry: JournalEntry>(_ journal: Journal<Entry>, samples: Int, describe: (Entry) -> Sample) -> [Group]
    where Entry.Kind: CustomStringConvertible {
        let byCode = Dictionary(grouping: journal, by: \.kind)
        return journal.counts.keys.sorted().map { code in
            let count = journal.counts[code, default: 0]
            let shown = (byCode[code] ?? []).prefix(samples).map(describe)
            return Group(code: code.description, count: count, first: shown.first, others: Array(shown.dropFirst()), othersCount: max(0, shown.count - 1), hasOthers: shown.count > 1,
                         more: count - shown.count, hasMore: count > shown.count)
        }
    }

    private static func diffView(_ diff: SnapshotDiff) -> DiffView {
        let counts = [
            Fact(label: "pharmacies added", value: String(diff.pharmaciesAdded.count), figure: "pharmacies_added"),
            Fact(label: "pharmacies removed", value: String(diff.pharmaciesRemoved.count), figure: "pharmacies_removed"),
            Fact(label: "pharmacies gone stale", value: String(diff.pharmaciesGoneStale.count), figure: "pharmacies_gone_stale"),
            Fact(label: "items added", value: String(diff.itemsAdded), figure: "items_added"),
            Fact(label: "items removed", value: String(diff.itemsRemoved), figure: "items_removed"),
            Fact(label: "offers added", value: String(diff.offersAdded), figure: "offers_added"),
            Fact(label: "offers removed", value: String(diff.offersRemoved), figure: "offers_removed"),
            Fact(label: "prices changed", value: String(diff.priceChanges), figure: "price_changes"),
            Fact(label: "limit prices changed", value: String(diff.limitPriceChanges), figure: "limit_price_changes"),
            Fact(label: "reimbursement changes", value: String(diff.reimbursementChanges.count), figure: "reimbursement_changes"),
        ]
        let buckets = diff.priceChangeHistogram
        let tallest = max(buckets.map(\.count).max() ?? 0, 1)
        let barWidth = 52.0, chartHeight = 160.0
        let histogram = buckets.enumerated().map { index, bucket in
            let height = bucket.count == 0 ? 0 : max(2, Double(bucket.count) / Double(tallest) * chartHeight)
            let from = bucket.fromPercent.map { String(format: "%+g", $0) } ?? "…"
            let to = bucket.toPercent.map { String(format: "%+g", $0) } ?? "…"
            return HistogramBar(label: "\(from) to \(to) %", count: bucket.count, x: String(format: "%.0f", Double(index) * barWidth + 4),
                                y: String(format: "%.1f", 20 + chartHeight - height), height: String(format: "%.1f", height),
                                labelX: String(format: "%.0f", Double(index) * barWidth + 4 + (barWidth - 8) / 2),
                                negative: (bucket.toPercent ?? 1) <= 0,
                                edge: bucket.fromPercent.map { String(format: "%+g %%", $0) }, edgeX: String(format: "%.0f", Double(index) * barWidth + 2))
        }
        let largest = diff.largestPriceChanges.map { change in
            let delta = change.newCents - change.oldCents
            return PriceChangeRow(place: "\(change.pharmacyID)/\(change.aptcode)", item: change.itemName ?? "", pharmacy: change.pharmacyName ?? "",
                                  old: Money.format(change.oldCents), new: Money.format(change.newCents),
                                  delta: (delta > 0 ? "+" : "-") + Money.format(abs(delta)),
                                  percent: change.percent.map { String(format: "%+.1f %%", $0) } ?? "from 0")
        }
        return DiffView(from: diff.from, counts: counts, histogram: histogram, histogramTotal: buckets.reduce(0) { $0 + $1.count },
                        largest: largest, hasLargest: !largest.isEmpty)
    }
}
