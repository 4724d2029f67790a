import Foundation
import IngestCore
import IngestSnapshot

/// The printed report: a verdict line, then what needs attention (feeds
/// rejected, skipped or with rejects, stale pharmacies, gates, warnings),
/// the rejects themselves (the first few per reason) and what was or would
/// be published. Plain text, the same on a terminal and in cron mail.
public struct ReportFormatter {
    /// How many rejects of each reason are shown; the rejects file has them all.
    public var samplesPerReason = 5
    /// Every feed in the table, not only those needing attention (`--verbose`).
    public var verbose = false

    public init(samplesPerReason: Int = 5, verbose: Bool = false) {
        self.samplesPerReason = samplesPerReason
        self.verbose = verbose
    }

    /// `elapsed`: the run's duration, for the verdict line, when the caller timed it;
    /// `htmlReports`: the HTML pages written for this run, listed last.
    public func format(_ report: RunReport, elapsed: TimeInterval? = nil, htmlReports: [String] = []) -> String {
        format(report, title: report.dryRun ? "ingest dry run: nothing is published" : "ingest run", publishing: true, elapsed: elapsed)
            + htmlReports.map { "report: \($0)\n" }.joined()
    }

    /// `--quiet`: nothing for a night that needs nobody (published or nothing
    /// new, no feed rejected whole, no gate or check failed, nothing forced);
    /// else the verdict and those things, one line each.
    public func attention(_ report: RunReport, elapsed: TimeInterval? = nil) -> String {
        var lines: [String] = []
        for feed in report.feeds where (feed.outcome == .rejected || feed.outcome == .unreadable) && !feed.earlierNight {
            lines.append("  \(feed.outcome.rawValue): \(feed.file)" + (feed.pharmacyID.map { " (pharmacy \($0))" } ?? "") + ": \(feed.message ?? feed.reason ?? "")")
        }
        for check in report.checks where !check.failed.isEmpty {
            lines.append("  check \(check.check) (limit \(check.limit)) failed for: \(check.failed.joined(separator: ", "))" + (check.forced ? ", loaded with --force" : ""))
        }
        lines += report.forcedGates.map { "  FORCED past \($0)" }
        if let blocked = report.blocked { lines.append("  " + (report.dryRun ? "WOULD NOT PUBLISH: " : "NOT PUBLISHED: ") + "\(blocked)") }
        guard !lines.isEmpty else { return "" }
        return ([verdict(report, elapsed: elapsed)] + lines).map(TextHygiene.visible).joined(separator: "\n") + "\n"
    }

    /// One line that says how the run ended, before any detail: what cron
    /// mail shows first. `PUBLISHED`, `NOT PUBLISHED (gates)` and the like,
    /// then the totals.
    public func verdict(_ report: RunReport, elapsed: TimeInterval? = nil) -> String {
        func count(_ number: Int, _ one: String, _ many: String) -> String { "\(number) \(number == 1 ? one : many)" }
        let pharmacies = report.rowCounts["pharmacies", default: 0]
        let stale = report.stalePharmacies
        var totals = "\(count(pharmacies, "pharmacy", "pharmacies")) (\(pharmacies - stale) fresh, \(stale) stale), "
            + "\(count(report.rowCounts["offers", default: 0], "offer", "offers")), \(count(report.rejects.total, "reject", "rejects")), "
            + count(report.warnings.total, "warning", "warnings")
        if let elapsed { totals += String(format: " in %.1f s", elapsed) }
        let code: String?
        switch report.blocked {
        case .emptyResult?: code = "no offers"
        case .noStockFeed?: code = "no stock feed"
        case .gates?: code = "quality gates"
        case nil: code = nil
        }
        if let version = report.publishedVersion { return "PUBLISHED \(version): \(totals)" }
        if report.nothingNew {
            return (report.dryRun ? "DRY RUN, nothing new to publish" : "NOTHING NEW TO PUBLISH")
                + " (current \(report.previousVersion ?? "?") holds the same data): \(totals)"
        }
        if let code { return (report.dryRun ? "WOULD NOT PUBLISH" : "NOT PUBLISHED") + " (\(code)): \(totals)" }
        return "DRY RUN, would publish: \(totals)"
    }

    /// `ingest check`: the files, their rejects and warnings; nothing about a snapshot.
    public func formatCheck(_ report: RunReport) -> String {
        format(report, title: "ingest check: nothing is written", publishing: false, elapsed: nil)
    }

    private func format(_ report: RunReport, title: String, publishing: Bool, elapsed: TimeInterval?) -> String {
        var lines: [String] = [title]
        if publishing { lines.append(verdict(report, elapsed: elapsed)) }
        // What would change comes right after the verdict: the first thing an operator reads, and what cron mails first.
        if let diff = report.diff {
            lines += format(diff)
            lines.append("")
        }
        let shown = verbose ? report.feeds : report.feeds.filter(\.needsAttention)
        lines += feedTable(shown, of: report.feeds)
        if !report.earlierNightFiles.isEmpty {
            let count = report.earlierNightFiles.count
            lines.append("\(count == 1 ? "1 file" : "\(count) files") left from earlier nights, already judged and not read again (ingest feeds prune removes them)")
        }
        lines += grouped("rejects by reason:", report.rejects) { reject in
            Sample(file: reject.file, line: reject.line, key: reject.key, text: (reject.field.map { "\($0): " } ?? "") + reject.message)
        }
        lines += grouped("warnings:", report.warnings) { warning in
            Sample(file: warning.file, line: warning.line, key: warning.key, text: warning.message)
        }
        if report.checks.contains(where: { $0.evaluated > 0 }) {
            lines.append("")
            lines.append("checks against current:")
            for check in report.checks where check.evaluated > 0 {
                let verdict = check.failed.isEmpty ? "passed" : (check.forced ? "FORCED" : "FAILED") + " for \(check.failed.joined(separator: ", "))"
                let closest = check.closest.map { "; closest \($0)" } ?? ""
                lines.append("  \(check.check) (limit \(check.limit)): \(check.evaluated) judged, \(verdict)\(closest)")
            }
        }
        if !report.carriedOver.isEmpty {
            lines.append("")
            lines.append("carried over from \(report.carriedOver.first!.fromVersion):")
            for entry in report.carriedOver {
                switch (entry.kind, entry.dropped) {
                case (.pharmacy, false):
                    lines.append("  pharmacy \(entry.key): \(entry.offers ?? 0) offers, stale since \(entry.lastRefresh ?? "?")")
                case (.pharmacy, true):
                    lines.append("  pharmacy \(entry.key): DROPPED, no valid feed since \(entry.lastRefresh ?? "?")")
                case (.reference, _):
                    lines.append("  \(entry.key): kept (missing or rejected tonight)")
                }
            }
        }
        if report.ignoredCurrent != nil {
            lines.append("")
            lines.append("compared against: \(report.baseline); no quality gate, check or carry-over ran")
        }
        if !report.cleanedUp.isEmpty {
            lines.append("")
            lines.append("removed what killed runs left:")
            lines += report.cleanedUp.map { "  \($0)" }
        }
        if !report.forcedGates.isEmpty {
            lines.append("")
            lines += report.forcedGates.map { "FORCED past \($0)" }
        }
        // Feed text (messages, keys) reaches the terminal escaped: no control character of a feed's runs there.
        guard publishing else { return lines.map(TextHygiene.visible).joined(separator: "\n") + "\n" }
        lines.append("")
        let counts = ["pharmacies", "items", "offers"].map { "\($0) \(report.rowCounts[$0, default: 0])" }.joined(separator: ", ")
        if let version = report.publishedVersion {
            lines.append("published \(version): \(counts)")
            if let path = report.snapshotPath { lines.append("snapshot: \(path)") }
        } else if report.nothingNew {
            lines.append("nothing new to publish: current \(report.previousVersion ?? "?") holds the same data and stays; \(counts)")
        } else if let blocked = report.blocked {
            lines.append((report.dryRun ? "WOULD NOT PUBLISH: " : "NOT PUBLISHED: ") + "\(blocked)")
        } else {
            lines.append("would publish: \(counts)")
        }
        return lines.map(TextHygiene.visible).joined(separator: "\n") + "\n"
    }

    /// The feeds table: `shown` in rows, totals over `all`; with nothing
    /// to show, one line that says so. Columns fit the longest value.
    private func feedTable(_ shown: [FeedResult], of all: [FeedResult]) -> [String] {
        let hidden = all.count - shown.count
        // What the hidden feeds are: loaded, or (a replayed or older export) superseded.
        let how = all.contains { !$0.needsAttention && $0.outcome == .superseded } ? "loaded or superseded" : "loaded"
        let hint = hidden > 0 ? "\(hidden) more \(hidden == 1 ? "feed" : "feeds") \(how) without a reject (--verbose lists every feed)" : nil
        if shown.isEmpty {
            let read = all.reduce(0) { $0 + $1.read }
            return ["all \(all.count) \(all.count == 1 ? "feed" : "feeds") \(how) without a reject: \(read) records read and accepted (--verbose lists them)"]
        }
        var lines: [String] = []
        let nameWidth = max(4, shown.map(\.file.count).max() ?? 4)
        // A chain file has a line per pharmacy; the column tells them apart.
        let pharmacyWidth = max(8, shown.map { ($0.pharmacyID ?? "-").count }.max() ?? 8)
        let adapterWidth = max(7, shown.map { ($0.adapter ?? "-").count }.max() ?? 7)
        func outcome(_ feed: FeedResult) -> String { feed.outcome.rawValue + (feed.reason.map { " (\($0))" } ?? "") }
        let outcomeWidth = max(7, shown.map { outcome($0).count }.max() ?? 7)
        let (pad, right) = (TextColumns.left, TextColumns.right)
        let leading = nameWidth + 2 + pharmacyWidth + 2 + adapterWidth + 2 + outcomeWidth
        lines.append(pad("FILE", nameWidth) + "  " + pad("PHARMACY", pharmacyWidth) + "  " + pad("ADAPTER", adapterWidth) + "  "
            + pad("OUTCOME", outcomeWidth) + right("READ", 9) + right("ACCEPTED", 10) + right("REJECTED", 10))
        for feed in shown {
            lines.append(pad(feed.file, nameWidth) + "  " + pad(feed.pharmacyID ?? "-", pharmacyWidth) + "  " + pad(feed.adapter ?? "-", adapterWidth)
                + "  " + pad(outcome(feed), outcomeWidth)
                + right(String(feed.read), 9) + right(String(feed.accepted), 10) + right(String(feed.rejected), 10))
            if !feed.rejectsByReason.isEmpty {
                let reasons = feed.rejectsByReason.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                lines.append(pad("", nameWidth) + "    rejected: " + reasons.joined(separator: ", "))
            }
            if let message = feed.message {
                lines.append(pad("", nameWidth) + "    " + message)
            }
        }
        let totals = all.reduce(into: (read: 0, accepted: 0, rejected: 0)) {
            $0.read += $1.read; $0.accepted += $1.accepted; $0.rejected += $1.rejected
        }
        lines.append(pad("total", leading) + right(String(totals.read), 9)
            + right(String(totals.accepted), 10) + right(String(totals.rejected), 10))
        if let hint { lines.append(hint) }
        return lines
    }

    /// The diff against current, as the dry run shows it.
    public func format(_ diff: SnapshotDiff) -> [String] {
        func list(_ values: [String]) -> String {
            values.isEmpty ? "none" : values.prefix(samplesPerReason * 2).joined(separator: ", ") + (values.count > samplesPerReason * 2 ? ", …" : "")
        }
        var lines = ["", "changes against \(diff.from):"]
        lines.append("  pharmacies added: \(diff.pharmaciesAdded.count) (\(list(diff.pharmaciesAdded)))")
        lines.append("  pharmacies removed: \(diff.pharmaciesRemoved.count) (\(list(diff.pharmaciesRemoved)))")
        lines.append("  pharmacies gone stale: \(diff.pharmaciesGoneStale.count) (\(list(diff.pharmaciesGoneStale)))")
        lines.append("  items added: \(diff.itemsAdded) (\(list(diff.itemsAddedSample))), removed: \(diff.itemsRemoved) (\(list(diff.itemsRemovedSample)))")
        lines.append("  offers added: \(diff.offersAdded), removed: \(diff.offersRemoved), price changed: \(diff.priceChanges), limit price changed: \(diff.limitPriceChanges)")
        for change in diff.largestPriceChanges {
            let delta = change.newCents - change.oldCents
            let percent = change.percent.map { String(format: ", %+.1f %%", $0) } ?? ""
            let names = [change.itemName, change.pharmacyName.map { "at \($0)" }].compactMap { $0 }.joined(separator: " ")
            lines.append("    \(change.pharmacyID)/\(change.aptcode): \(Money.format(change.oldCents)) → \(Money.format(change.newCents)) "
                + "(\(delta > 0 ? "+" : "-")\(Money.format(abs(delta)))\(percent))" + (names.isEmpty ? "" : "  \(names)"))
        }
        if diff.priceChanges > 0 {
            let buckets = diff.priceChangeHistogram.filter { $0.count > 0 }.map { bucket in
                let from = bucket.fromPercent.map { String(format: "%+g %%", $0) } ?? "…"
                let to = bucket.toPercent.map { String(format: "%+g %%", $0) } ?? "…"
                return "\(from) to \(to): \(bucket.count)"
            }
            lines.append("    by size: " + buckets.joined(separator: "; "))
        }
        lines.append("  reimbursement changes: \(diff.reimbursementChanges.count)")
        for change in diff.reimbursementChanges.prefix(samplesPerReason * 2) {
            let limits = "\(change.oldLimitCents.map(Money.format) ?? "-") → \(change.newLimitCents.map(Money.format) ?? "-")"
            lines.append("    \(change.packageCode) \(change.rate) %: \(change.change) (limit \(limits))")
        }
        return lines
    }

    /// One sampled reject or warning, in parts, so that the same message on
    /// many lines of one file (a feed rejected whole) can be shown once.
    struct Sample {
        var file: String
        var line: Int
        var key: String
        var text: String
    }

    /// A titled list grouped by code: each code with its count (from
    /// `counts`: the journal's sample holds only the first of each) and its
    /// first `samplesPerReason` distinct messages. A message repeated on
    /// several lines of one file is one entry with its first lines
    /// (`feed.xml:5, 14, 23, …: feed rejected whole …`), unless every
    /// reject is asked for (`check --all`).
    private func grouped<Entry: JournalEntry>(_ title: String, _ journal: Journal<Entry>, sample: (Entry) -> Sample) -> [String]
    where Entry.Kind: CustomStringConvertible {
        guard journal.total > 0 else { return [] }
        var lines = ["", title]
        var every: [Entry] = []
        if samplesPerReason == .max {
            // `check --all`: every entry, from the journal's file past the sample of each kind.
            do { try journal.forEveryEntry { every.append($0) } } catch {
                lines.append("  (the full list could not be read back: \(error); the first \(Journal<Entry>.samplePerKind) of each follow)")
                every = Array(journal)
            }
        }
        let byCode = Dictionary(grouping: samplesPerReason == .max ? every : Array(journal), by: \.kind)
        for code in journal.counts.keys.sorted() {
            let count = journal.counts[code, default: 0]
            // Runs of one file's same message, in sample order.
            var runs: [(first: Sample, lines: [Int])] = []
            var entries = (byCode[code] ?? []).map(sample)
            // Every entry is in the order it was written (a sorted feed's revoked offers by key): listed by file and line, as the sample is.
            if samplesPerReason == .max { entries.sort { ($0.file, $0.line) < ($1.file, $1.line) } }
            for next in entries {
                if samplesPerReason < .max, let last = runs.last, last.first.file == next.file, last.first.text == next.text {
                    runs[runs.count - 1].lines.append(next.line)
                } else {
                    guard runs.count < samplesPerReason else { break }
                    runs.append((next, [next.line]))
                }
            }
            lines.append("  \(code): \(count)")
            for run in runs {
                let place = run.first.file.isEmpty ? "" : "\(run.first.file):" + run.lines.prefix(3).map(String.init).joined(separator: ", ")
                    + (run.lines.count > 3 ? ", …" : "")
                let key = run.first.key.isEmpty ? "" : "[\(run.first.key)\(run.lines.count > 1 ? ", …" : "")]"
                lines.append("    " + [place, key, run.first.text].filter { !$0.isEmpty }.joined(separator: " "))
            }
            let covered = runs.reduce(0) { $0 + $1.lines.count }
            if count > covered { lines.append("    … and \(count - covered) more") }
        }
        return lines
    }
}
