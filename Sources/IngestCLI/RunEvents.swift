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
/// then `run_finished`; or `run_failed` when the run stopped on an error.
/// `phase_done`, `progress` and `published` come from the run as it goes.
struct RunEvents {
    let logger: Logger

    func finished(_ report: RunReport, status: ExitStatus, started: Date, finished: Date) {
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
        var metadata: Logger.Metadata = [
            "event": "run_finished", "exit_status": .stringConvertible(Int(status.rawValue)),
            "published": .stringConvertible(report.publishedVersion != nil), "dry_run": .stringConvertible(report.dryRun),
            "duration_seconds": .stringConvertible(MachineTime.seconds(finished.timeIntervalSince(started))),
            "rejects": .stringConvertible(report.rejectCounts.values.reduce(0, +)),
            "warnings": .stringConvertible(report.warningCounts.values.reduce(0, +)),
        ]
        for table in ["pharmacies", "items", "offers"] { metadata[table] = .stringConvertible(report.rowCounts[table, default: 0]) }
        if let version = report.publishedVersion { metadata["version"] = "\(version)" }
        switch report.blocked {
        case .emptyResult?: metadata["blocked"] = "empty_result"
        case .gates?: metadata["blocked"] = "gates"
        case nil: break
        }
        logger.log(level: status == .success ? .info : .error, "run finished", metadata: metadata)
    }

    func failed(_ error: Error, status: ExitStatus, started: Date, finished: Date) {
        logger.error("run failed", metadata: [
            "event": "run_failed", "exit_status": .stringConvertible(Int(status.rawValue)), "error": "\(error)",
            "duration_seconds": .stringConvertible(MachineTime.seconds(finished.timeIntervalSince(started))),
        ])
    }
}
