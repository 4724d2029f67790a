import Foundation
import IngestTestSupport
import Testing

/// The HTML run report, read back with libxml2's HTML parser: its figures
/// are the manifest's and the JSON report's, on a night with rejected
/// feeds, stale pharmacies and price changes; dry, gated and failed runs
/// get a page too; names from the feeds are escaped.
@Suite struct HTMLRunReportTests {
    private func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    /// Two generated nights of one seed: the first clean, the second with faults,
    /// price changes and the feeds of pharmacies 10004 and 10006 missing.
    private func twoNights(_ temporary: TemporaryDirectory) throws -> (first: String, second: String) {
        for (name, extra) in [("n1", [String]()), ("n2", ["--days-later", "1", "--bad-rate", "0.03", "--price-change-rate", "0.3"])] {
            let result = try CommandRunner.ingest(["generate", "--out", "\(temporary.path)/\(name)", "--pharmacies", "12", "--items", "40",
                                                   "--seed", "5"] + extra)
            #expect(result.status == 0, "\(result.stderr)")
        }
        let feeds = "\(temporary.path)/n2/feeds"
        for file in try FileManager.default.contentsOfDirectory(atPath: feeds) where file.contains("_10004_") || file.contains("_10006_") {
            try FileManager.default.removeItem(atPath: "\(feeds)/\(file)")
        }
        return ("\(temporary.path)/n1", "\(temporary.path)/n2")
    }

    @Test func thePublishedPageShowsTheManifestsFigures() throws {
        let temporary = TemporaryDirectory()
        let nights = try twoNights(temporary)
        let snapshots = "\(temporary.path)/s"
        let first = try CommandRunner.ingest(["--feeds", "\(nights.first)/feeds", "--mappings", "\(nights.first)/mappings",
                                              "--snapshots", snapshots, "--as-of", "2025-11-21"])
        #expect(first.status == 0, "\(first.stderr)")
        let report = "\(temporary.path)/report.json"
        let second = try CommandRunner.ingest(["--feeds", "\(nights.second)/feeds", "--mappings", "\(nights.second)/mappings",
                                               "--snapshots", snapshots, "--as-of", "2025-11-22", "--report", report, "--min-fresh-share", "0"])
        #expect(second.status == 0, "\(second.stderr)")
        let document = try json(report)
        let version = try #require(document["published_version"] as? String)
        let pagePath = "\(snapshots)/\(version).report.html"
        // The text report points at the page.
        #expect(second.stdout.hasSuffix("report: \(pagePath)\n"))
        let page = try HTMLPage(path: pagePath)
        let manifest = try json("\(snapshots)/\(version).manifest.json")

        #expect(page.text("//*[@id='verdict']")?.hasPrefix("PUBLISHED \(version): ") == true)
        let rows = try #require(manifest["row_counts"] as? [String: Int])
        for table in ["pharmacies", "items", "offers"] {
            #expect(page.figure(table) == rows[table], "\(table)")
        }
        // Rejects: the total and every reason's count.
        let rejectCounts = try #require(manifest["reject_counts"] as? [String: Int])
        #expect(rejectCounts.count >= 3)
        #expect(page.figure("rejects") == rejectCounts.values.reduce(0, +))
        #expect(page.figure("reject_total") == rejectCounts.values.reduce(0, +))
        for (reason, count) in rejectCounts {
            #expect(page.text("//*[@data-reason='\(reason)']") == String(count), "\(reason)")
        }
        // Every feed of the night has its row (the carried-over entries are the manifest's, not tonight's files).
        let inputs = try #require(manifest["inputs"] as? [[String: Any]])
        let tonight = inputs.filter { $0["outcome"] as? String != "carried_over" }
        #expect(page.texts("//table[@id='feed-table']/tbody/tr").count == tonight.count)
        #expect(page.figure("read") == tonight.reduce(0) { $0 + ($1["read"] as? Int ?? 0) })
        #expect(page.figure("rejected") == tonight.reduce(0) { $0 + ($1["rejected"] as? Int ?? 0) })
        // Feeds needing attention come first: no loaded feed without rejects above a rejected one.
        let outcomes = page.texts("//table[@id='feed-table']/tbody/tr/@data-outcome")
        if let lastRejected = outcomes.lastIndex(of: "rejected") {
            #expect(outcomes.prefix(lastRejected).allSatisfy { $0 == "rejected" })
        }
        // The map: one dot per pharmacy, the stale ones those carried over.
        let carried = try #require(manifest["carried_over"] as? [[String: Any]])
        let stale = Set(carried.filter { $0["kind"] as? String == "pharmacy" && $0["dropped"] as? Bool == false }.compactMap { $0["key"] as? String })
        #expect(stale.isSuperset(of: ["10004", "10006"]))
        #expect(Set(page.texts("//*[@id='pharmacy-map']/*[name()='circle' and @class='stale']/@data-pharmacy")) == stale)
        #expect(page.texts("//*[@id='pharmacy-map']/*[name()='circle']").count == rows["pharmacies"])
        #expect(page.figure("stale") == stale.count && page.figure("map_stale") == stale.count)
        // The change against current: every price change in the histogram, the largest with names.
        let diff = try #require(document["diff"] as? [String: Any])
        let priceChanges = try #require(diff["price_changes"] as? Int)
        #expect(priceChanges > 0)
        #expect(page.figure("price_changes") == priceChanges && page.figure("histogram_total") == priceChanges)
        let bars = page.texts("//*[@id='price-histogram']/*[name()='rect']/@data-count").compactMap { Int($0) }
        #expect(bars.count == 12 && bars.reduce(0, +) == priceChanges)
        let largest = try #require(diff["largest_price_changes"] as? [[String: Any]])
        #expect(page.texts("//table[@id='largest-changes']/tbody/tr").count == largest.count)
        #expect(page.text("//table[@id='largest-changes']/tbody/tr[1]/td[2]") == largest.first?["item_name"] as? String)
        // Gates with margins, and the phases in the order they ran.
        #expect(page.texts("//tr[@data-gate]/@data-gate") == ["offers", "pharmacies", "pharmacies_rise", "unregistered_pharmacies"])
        #expect(page.texts("//tr[@data-gate]/td[last()]") == ["passed", "passed", "passed", "passed"])
        #expect(page.texts("//*[@data-phase]/@data-phase").last == "checked and published")
        // Self-contained: nothing is fetched from elsewhere.
        #expect(page.texts("//script/@src | //link/@href | //img/@src").isEmpty)
    }

    @Test func dryGatedAndFailedRunsGetAPageThatSaysSo() throws {
        let temporary = TemporaryDirectory()
        let nights = try twoNights(temporary)
        let snapshots = "\(temporary.path)/s"
        func run(_ night: String, _ extra: [String]) throws -> (status: Int32, page: HTMLPage) {
            let path = "\(temporary.path)/\(extra.joined()).html"
            let result = try CommandRunner.ingest(["--feeds", "\(night)/feeds", "--mappings", "\(night)/mappings", "--snapshots", snapshots,
                                                   "--html", path] + extra)
            return (result.status, try HTMLPage(path: path))
        }
        let published = try run(nights.first, ["--as-of", "2025-11-21"])
        #expect(published.status == 0)
        #expect(published.page.text("//*[@id='changes']/following-sibling::p[1]") == "There was no current snapshot to compare with.")

        // The generated second night rejects a file of each kind, most of a world of twelve: the fresh-share gate is left out.
        let dry = try run(nights.second, ["--as-of", "2025-11-22", "--dry-run", "--min-fresh-share", "0"])
        #expect(dry.status == 0)
        #expect(dry.page.text("//*[@id='verdict']")?.hasPrefix("DRY RUN, would publish: ") == true)
        #expect(dry.page.texts("//*[@id='verdict']/@class") == ["verdict dry"])
        #expect((dry.page.figure("price_changes") ?? 0) > 0)

        // Half the offers gone: the offers gate fails, and the page shows by how much.
        let gated = try run(nights.second, ["--as-of", "2025-11-22", "--max-offer-drop", "0", "--max-pharmacy-drop", "0"])
        #expect(gated.status == 3)
        #expect(gated.page.texts("//*[@id='verdict']/@class") == ["verdict blocked"])
        #expect(gated.page.text("//*[@id='verdict']")?.hasPrefix("NOT PUBLISHED (quality gates): ") == true)
        #expect(gated.page.texts("//tr[@data-gate]/td[last()]").contains("FAILED"))

        let failed = try run("\(temporary.path)/missing", [])
        #expect(failed.status == 66)
        #expect(failed.page.texts("//*[@id='verdict']/@class") == ["verdict failed"])
        #expect(failed.page.text("//*[@id='verdict']") == "FAILED (exit 66): a named input is missing (mappings folder, file, version)")
        #expect(failed.page.text("//*[@id='error']")?.contains("\(temporary.path)/missing") == true)
        #expect(failed.page.figure("exit_status") == 66)
    }

    /// A file name is the feed's sender's text: markup in it is shown, never obeyed.
    @Test func namesFromTheFeedsAreEscaped() throws {
        let temporary = TemporaryDirectory()
        var feed = RAXFeedBuilder(pharmacyID: "3000", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 1))
        feed.item("MM1", price: "1,00")
        temporary.write("feeds/rax_3000.txt", bytes: feed.bytes)
        // No slash: a file name cannot hold one, so the markup stays unclosed.
        let hostile = "<b id=\"x\">&amp;<script>alert(1).txt"
        temporary.write("feeds/\(hostile)", bytes: Array("not a feed".utf8))
        let path = "\(temporary.path)/page.html"
        let result = try CommandRunner.ingest(["--feeds", "\(temporary.path)/feeds", "--snapshots", "\(temporary.path)/s", "--html", path])
        #expect(result.status == 0, "\(result.stderr)")
        let page = try HTMLPage(path: path)
        #expect(page.texts("//table[@id='feed-table']/tbody/tr/td[1]").contains(hostile))
        #expect(page.texts("//b[@id='x']").isEmpty && page.texts("//script").count == 1)
    }
}
