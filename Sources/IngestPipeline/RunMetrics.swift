import Foundation
import IngestCore
import IngestSnapshot
import Prometheus

/// `--metrics-file PATH`: a Prometheus textfile (node_exporter's textfile
/// collector) written after every run, successful or not, so an import that
/// stalls or fails raises an alert. The last success time is carried from
/// the previous file when this run did not succeed.
public struct RunMetrics {
    public var startedAt: Date
    public var finishedAt: Date
    public var exitCode: Int32
    public var report: RunReport?

    public init(startedAt: Date, finishedAt: Date, exitCode: Int32, report: RunReport?) {
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.exitCode = exitCode
        self.report = report
    }

    /// A run that published (a dry run publishes nothing: it moves no success time).
    var published: Bool { exitCode == 0 && (report?.dryRun == false) }
    /// A run that did what it was asked: published, found nothing new, or
    /// (a dry run) judged the feeds, with or without changes to report
    /// (`--detailed-exitcode`'s 2). A dry run is never counted a failure.
    var succeeded: Bool { exitCode == 0 || (report?.dryRun == true && exitCode == 2) }

    /// The textfile, made by swift-prometheus's registry (the same exposition
    /// `ingest-serve`'s `/metrics` uses). A registry of its own per run:
    /// nothing process-wide to bootstrap, and the file holds this run only.
    public func text(previous: String?) -> String {
        let registry = PrometheusCollectorRegistry()
        func gauge(_ name: String, _ help: String, _ samples: [(labels: [(String, String)], value: Double)]) {
            for sample in samples {
                registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: sample.labels)
                    .set(sample.value)
            }
        }
        let finished = finishedAt.timeIntervalSince1970.rounded(.down)
        let lastSuccess = published ? finished : Self.value(of: "ingest_last_success_timestamp_seconds", in: previous) ?? 0
        gauge("ingest_last_run_timestamp_seconds", "When the last run ended.", [([], finished)])
        gauge("ingest_last_success_timestamp_seconds", "When a run last published a snapshot.", [([], lastSuccess)])
        gauge("ingest_last_run_success", "1 if the last run did what it was asked (a dry run counts when it judged the feeds).",
              [([], succeeded ? 1 : 0)])
        gauge("ingest_last_run_dry_run", "1 if the last run was a dry run.", [([], report?.dryRun == true ? 1 : 0)])
        gauge("ingest_last_run_exit_code", "Exit code of the last run.", [([], Double(exitCode))])
        gauge("ingest_run_duration_seconds", "Wall time of the last run.",
              [([], (finishedAt.timeIntervalSince(startedAt) * 1000).rounded() / 1000)])
        // Every family on every run, a run that stopped before its report
        // (exit 64, 70, 78 …) included: a series that comes and goes breaks
        // rate() and alerts. Rows and reject reasons keep the previous
        // file's series (rows at their values: what `current` still holds;
        // rejects at 0: this run rejected nothing).
        let rows = report?.rowCounts ?? Self.samples(of: "ingest_rows", label: "table", in: previous)
        gauge("ingest_rows", "Rows per table in the snapshot built by the last run (a run without one: the previous file's).",
              rows.sorted { $0.key < $1.key }.map { ([("table", $0.key)], Double($0.value)) })
        var rejects = Self.samples(of: "ingest_rejects", label: "reason", in: previous).mapValues { _ in 0 }
        for (reason, count) in report?.rejectCounts ?? [:] { rejects[reason.rawValue] = count }
        gauge("ingest_rejects", "Records rejected by the last run, by reason.",
              rejects.sorted { $0.key < $1.key }.map { ([("reason", $0.key)], Double($0.value)) })
        gauge("ingest_feeds_left_from_earlier_nights", "Files an earlier night judged for good, left in the feeds folder and not read again.",
              [([], Double(report?.earlierNightFiles.count ?? 0))])
        let outcomes = Dictionary(grouping: report?.feeds ?? [], by: \.outcome)
        gauge("ingest_feeds", "Input files of the last run, by outcome.",
              FeedOutcome.allCases.map { ([("outcome", $0.rawValue)], Double(outcomes[$0]?.count ?? 0)) })
        // Every night gate and every way a night is blocked has a sample each run, 0 when it passed.
        var gates = Dictionary(uniqueKeysWithValues: (gateNames(.night) + ["empty_result", "no_stock_feed"]).map { ($0, 0) })
        if case .gates(let failures)? = report?.blocked { for failure in failures { gates[failure.gate] = 1 } }
        if let blocked = report?.blocked, blocked.code != "gates" { gates[blocked.code] = 1 }
        gauge("ingest_quality_gate_failed", "1 for each quality gate the last run failed.",
              gates.sorted { $0.key < $1.key }.map { ([("gate", $0.key)], Double($0.value)) })
        var checks = Dictionary(uniqueKeysWithValues: gateNames(.pharmacy).map { ($0, 0) })
        for check in report?.checks ?? [] { checks[check.check] = check.failed.count }
        gauge("ingest_check_failed", "Pharmacies each wrong-data check failed in the last run.",
              checks.sorted { $0.key < $1.key }.map { ([("check", $0.key)], Double($0.value)) })
        gauge("ingest_check_margin", "How far inside its limit the closest passing pharmacy stayed (price: factor, items: percentage points).",
              (report?.checks ?? []).compactMap { check in check.margin.map { ([("check", check.check)], $0) } })
        gauge("ingest_carried_over_pharmacies", "Pharmacies kept stale from an earlier snapshot (a run without a report: the previous file's).",
              [([], report.map { Double($0.carriedOver.filter { $0.kind == .pharmacy && !$0.dropped }.count) }
                    ?? Self.value(of: "ingest_carried_over_pharmacies", in: previous) ?? 0)])
        return registry.emitToString()
    }

    /// The gates of `scope` that have a sample every run: the built-in ones
    /// (a run that stopped before it judged has no catalogue of its own),
    /// then any other the report judged.
    func gateNames(_ scope: GateScope) -> [String] {
        let builtIn = GateCatalog.builtIn(gates: QualityGates(), checks: StockDataChecks()).gates(scope).map(\.name)
        let judged = scope == .night ? report?.gates.map(\.gate) ?? [] : report?.checks.map(\.check) ?? []
        return builtIn + judged.filter { !builtIn.contains($0) }
    }

    /// A labelled family's samples in an earlier textfile, by the label's value.
    static func samples(of name: String, label: String, in text: String?) -> [String: Int] {
        guard let text else { return [:] }
        var samples: [String: Int] = [:]
        let prefix = "\(name){\(label)=\""
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            let rest = line.dropFirst(prefix.count)
            guard let close = rest.firstIndex(of: "\""), let space = rest.lastIndex(of: " "),
                  let value = Double(rest[rest.index(after: space)...]) else { continue }
            samples[String(rest[..<close])] = Int(value)
        }
        return samples
    }

    /// A sample's value from an earlier textfile: how the last success time
    /// survives a failed run. Absent (a first run, a file from elsewhere) is 0.
    static func value(of name: String, in text: String?) -> Double? {
        guard let text else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    /// Writes the textfile atomically (a scraper never sees half of it).
    public func write(to path: String) throws {
        let previous = try? String(contentsOfFile: path, encoding: .utf8)
        try OutputFile.write(Data(text(previous: previous).utf8), to: path)
    }
}
