import Foundation
import IngestPipeline
import IngestSnapshot
import Mustache

/// The run as one self-contained HTML page: written beside every published
/// snapshot (`<version>.report.html`) and wherever `--html` says, for dry
/// and failed runs too. `report` is nil when the run stopped before it had one.
public struct HTMLRunReport {
    public var report: RunReport?
    public var run: RunReportDocument.Run
    /// The one-line verdict the text report starts with.
    public var verdict: String

    public init(report: RunReport?, run: RunReportDocument.Run, verdict: String) {
        self.report = report
        self.run = run
        self.verdict = verdict
    }

    /// Parsed at each render (a millisecond): a template that does not parse is a bug every rendering test catches.
    public func render() throws -> String {
        try MustacheTemplate(string: RunReportTemplate.source).render(RunReportPage(report: report, run: run, verdict: verdict))
    }

    public func write(to path: String) throws {
        try OutputFile.write(Data(render().utf8), to: path)
    }
}
