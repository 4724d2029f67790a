import Foundation
import IngestPipeline

extension RunReportDocument.Run {
    /// A run of `report` that finished now with exit status 0, for tests that look at the report's body.
    static func finished(_ report: RunReport) -> Self {
        .init(importerVersion: "test", startedAt: Date(), finishedAt: Date(), exitStatus: 0, dryRun: report.dryRun)
    }
}
