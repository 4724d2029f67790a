import Foundation
import IngestCore
import IngestPipeline
import Logging

/// A run's outcome as log events with stable snake_case field names, for
/// log shippers (`--log-format json`): what the text report says to a
/// person, said once more as data. The text log leaves them out: cron mail
/// has the report itself.
///
/// Events: `rejects` (one per reason), `warnings` (one per code),
/// `gate_failed` (one per failed gate), `check` (one per wrong-data check),
/// then `run_finished`; a run that stopped on an error says `run_failed`,
/// then `run_finished`. Every run's last line is its `run_finished`.
/// `phase_done`, `progress` and `published` come from the run as it goes.
struct RunEvents {
    let logger: Logger

    /// `verdict`: the text report's first line, so the log alone says how the night ended.
    func finished(_ report: RunReport, status: ExitStatus, verdict: String, started: Date, finished: Date) {
        for (reason, count) in report.rejectCounts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            logger.info("rejects", metadata: ["event": "rejects", "reason": "\(reason.rawValue)", "count": .stringConvertible(count)])
        }
        for (code, count) in report.warningCounts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            logger.info("warnings", metadata: ["event": "warnings", "code": "\(code.rawValue)", "count": .stringConvertible(count)])
        }
        let blockingGates: [QualityGates.Failure]
        if case .gates(let failures)? = report.blocked { blockingGates = failures } else { blockingGates = [] }
        for (failure, forced) in blockingGates.map({ ($0, false) }) + report.forcedGates.map({ ($0, true) }) {
            logger.warning("gate failed", metadata: [
                "event": "gate_failed", "gate": "\(failure.gate)", "current": .stringConvertible(failure.current),
                "new": .stringConvertible(failure.new), "drop_percent": .stringConvertible(Double(failure.dropPercent) ?? .nan),
                "limit_percent": .stringConvertible(failure.limitPercent), "forced": .stringConvertible(forced),
            ])
        }
        for check in report.checks {
            var metadata: Logger.Metadata = [
                "event": "check", "check": "\(check.check)", "limit": "\(check.limit)", "evaluated": .stringConvertible(check.evaluated),
                "failed": .array(check.failed.map { .string($0) }), "forced": .stringConvertible(check.forced),
            ]
            if let margin = check.margin { metadata["margin"] = .stringConvertible(margin) }
            logger.info("check", metadata: metadata)
        }
        var metadata = Self.finishedMetadata(status: status, verdict: verdict, dryRun: report.dryRun, started: started, finished: finished)
        metadata["published"] = .stringConvertible(report.publishedVersion != nil)
        metadata["rejects"] = .stringConvertible(report.rejectCounts.values.reduce(0, +))
        metadata["warnings"] = .stringConvertible(report.warningCounts.values.reduce(0, +))
        metadata["stale_pharmacies"] = .stringConvertible(report.stalePharmacies)
        for table in ["pharmacies", "items", "offers"] { metadata[table] = .stringConvertible(report.rowCounts[table, default: 0]) }
        if let version = report.publishedVersion { metadata["version"] = "\(version)" }
        if let blocked = report.blocked {
            metadata["blocked"] = "\(blocked.code)"
            metadata["why"] = "\(blocked)"
        }
        finishedLine(status: status, metadata)
    }

    func failed(_ error: Error, status: ExitStatus, started: Date, finished: Date) {
        logger.error("run failed", metadata: [
            "event": "run_failed", "exit_status": .stringConvertible(Int(status.rawValue)), "error": "\(error)",
            "duration_seconds": .stringConvertible(MachineTime.seconds(finished.timeIntervalSince(started))),
        ])
    }

    /// The last line of a run that stopped on an error (after its `run_failed`): no counts to give.
    func finished(status: ExitStatus, verdict: String, dryRun: Bool, started: Date, finished: Date) {
        var metadata = Self.finishedMetadata(status: status, verdict: verdict, dryRun: dryRun, started: started, finished: finished)
        metadata["published"] = .stringConvertible(false)
        finishedLine(status: status, metadata)
    }

    private static func finishedMetadata(status: ExitStatus, verdict: String, dryRun: Bool, started: Date, finished: Date) -> Logger.Metadata {
        ["event": "run_finished", "exit_status": .stringConvertible(Int(status.rawValue)), "verdict": "\(verdict)",
         "dry_run": .stringConvertible(dryRun), "duration_seconds": .stringConvertible(MachineTime.seconds(finished.timeIntervalSince(started)))]
    }

    /// Every run ends with this line, `--quiet` (which drops info) included:
    /// a log shipper or an alert keyed on it sees every night.
    private func finishedLine(status: ExitStatus, _ metadata: Logger.Metadata) {
        var always = logger
        always.logLevel = min(always.logLevel, .info)
        always.log(level: status == .success ? .info : .error, "run finished", metadata: metadata)
    }
}
