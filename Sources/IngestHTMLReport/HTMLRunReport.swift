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

    /// Parsed at each render: a template that does not parse is a bug every
    /// rendering test catches. It is parsed in parts (`RunReportTemplate.parts`),
    /// each a partial of a page that names them in turn: swift-mustache's
    /// parser measures the text left after each tag it reads
    /// (`String.distance`, character by character), so one 12 KB template
    /// cost 137 million instructions a run, 0.8 % of `make bench-instructions`.
    public func render() throws -> String {
        var library = MustacheLibrary()
        let parts = RunReportTemplate.parts()
        for (index, part) in parts.enumerated() { try library.register(part, named: "part\(index)") }
        let page = try MustacheTemplate(string: parts.indices.map { "{{>part\($0)}}" }.joined())
        return page.render(RunReportPage(report: report, run: run, verdict: verdict), library: library)
    }

    public func write(to path: String) throws {
        try OutputFile.write(Data(render().utf8), to: path)
    }
}
