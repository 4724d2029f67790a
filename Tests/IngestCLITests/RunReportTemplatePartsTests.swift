import Foundation
import IngestPipeline
import IngestTestSupport
import Mustache
import Testing
@testable import IngestHTMLReport

/// The HTML report's template is parsed in parts (swift-mustache's parser
/// is quadratic in a template's length): the parts rendered in turn are the
/// whole template's page, byte for byte, on a night that fills every
/// section (rejects, warnings, carried pharmacies, price changes).
@Suite struct RunReportTemplatePartsTests {
    @Test func thePartsRenderTheWholeTemplatesPageByteForByte() throws {
        let temporary = TemporaryDirectory()
        for (name, extra) in [("n1", [String]()), ("n2", ["--days-later", "1", "--bad-rate", "0.03", "--price-change-rate", "0.3"])] {
            let result = try CommandRunner.ingest(["generate", "--out", "\(temporary.path)/\(name)", "--pharmacies", "12", "--items", "40",
                                                   "--seed", "5"] + extra)
            #expect(result.status == 0, "\(result.stderr)")
        }
        let feeds = "\(temporary.path)/n2/feeds"
        for file in try FileManager.default.contentsOfDirectory(atPath: feeds) where file.contains("_10004_") {
            try FileManager.default.removeItem(atPath: "\(feeds)/\(file)")
        }
        var report: RunReport?
        for (night, name) in ["n1", "n2"].enumerated() {
            let options = ImportOptions(feedsDirectory: "\(temporary.path)/\(name)/feeds", snapshotsDirectory: "\(temporary.path)/s",
                                        mappingsDirectory: "\(temporary.path)/\(name)/mappings", parseThreads: 2,
                                        asOf: Date(timeIntervalSince1970: TimeInterval(1_763_697_600 + night * 86_400)))
            report = try ImportRun(options: options).run()
        }
        let run = RunReportDocument.Run(importerVersion: "test", startedAt: Date(timeIntervalSince1970: 1_763_784_000),
                                        finishedAt: Date(timeIntervalSince1970: 1_763_784_012), exitStatus: 0, dryRun: false)
        let page = HTMLRunReport(report: report, run: run, verdict: "published")
        let whole = try MustacheTemplate(string: RunReportTemplate.source)
            .render(RunReportPage(report: report, run: run, verdict: "published"))
        let parts = try page.render()
        #expect(parts == whole)
        #expect(whole.contains("id=\"carried") || whole.contains("Carried over"), "the night carries a pharmacy")
        #expect(whole.contains("Largest price changes"), "the night changes prices")

        let cut = RunReportTemplate.parts()
        #expect(cut.count >= 8)
        #expect(cut.joined() == RunReportTemplate.source)
        // A section is never cut: each part opens as many as it closes.
        for part in cut {
            let opened = part.components(separatedBy: "{{#").count + part.components(separatedBy: "{{^").count - 2
            #expect(opened == part.components(separatedBy: "{{/").count - 1)
        }
    }
}
