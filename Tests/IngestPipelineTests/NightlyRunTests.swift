import Foundation
import IngestCore
import IngestGenerator
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// Issue 16: nights replayed in order with `--as-of`; time only moves
/// forward, chain files count pharmacy by pharmacy, one bad file never stops
/// the night. Every published manifest keeps `read = accepted + rejected`
/// per file and per pharmacy.
@Suite struct NightlyRunTests {
    /// One folder of feeds and one of snapshots, run night after night.
    final class Nights {
        let temporary = TemporaryDirectory()
        let feeds: String
        let mappings: String
        var snapshots: String { "\(temporary.path)/snapshots" }
        var directory: SnapshotDirectory { SnapshotDirectory(path: snapshots) }

        init() {
            feeds = temporary.subdirectory("feeds")
            mappings = temporary.subdirectory("mappings")
            try? FileManager.default.copyItem(atPath: "\(RepositoryFiles.mappingsDirectory)/patient_price_rules.toml",
                                              toPath: "\(mappings)/patient_price_rules.toml")
        }

        /// A RAX export of `pharmacy` at Tallinn time `exported` (`YYYYMMDDTHHMM`), one item per price.
        func rax(_ file: String, pharmacy: String, exported: String, prices: [String] = ["1,00", "2,00"]) {
            var feed = RAXFeedBuilder(pharmacyID: pharmacy, exportedAt: exported)
            for (index, price) in prices.enumerated() { feed.item("MM\(index)", name: "TOODE \(index)", price: price) }
            temporary.write("feeds/\(file)", bytes: feed.bytes)
        }

        func remove(_ file: String) throws { try FileManager.default.removeItem(atPath: "\(feeds)/\(file)") }

        /// A run at `asOf` (`YYYY-MM-DDTHH:MM:SS`, Tallinn time).
        func run(asOf: String, dryRun: Bool = false) throws -> RunReport {
            let time = try #require(ExportTimestamp.parseISO8601(asOf))
            let report = try ImportRun(options: ImportOptions(
                feedsDirectory: feeds, snapshotsDirectory: snapshots, mappingsDirectory: mappings, dryRun: dryRun, parseThreads: 2,
                asOf: Date(timeIntervalSince1970: TimeInterval(time.epochSeconds)))).run()
            if let version = report.publishedVersion { try expectCountsAddUp(try directory.readManifest(version)) }
            return report
        }

        func current() throws -> SnapshotQuery { try SnapshotQuery(directory.currentPath) }

        /// read = accepted + rejected for every input, and for every pharmacy across its inputs.
        func expectCountsAddUp(_ manifest: Manifest) throws {
            var perPharmacy: [String: (read: Int, accepted: Int, rejected: Int)] = [:]
            for input in manifest.inputs {
                #expect(input.read == input.accepted + input.rejected, "\(input.file) \(input.pharmacyId ?? "")")
                #expect(input.rejected == input.rejectsByReason.values.reduce(0, +), "\(input.file) reasons")
                guard input.outcome != "carried_over", let id = input.pharmacyId else { continue }
                var sums = perPharmacy[id] ?? (0, 0, 0)
                sums.read += input.read
                sums.accepted += input.accepted
                sums.rejected += input.rejected
                perPharmacy[id] = sums
            }
            for (id, sums) in perPharmacy { #expect(sums.read == sums.accepted + sums.rejected, "pharmacy \(id)") }
        }
    }

    private func feed(_ report: RunReport, _ file: String, pharmacy: String? = nil) throws -> FeedResult {
        try #require(report.feeds.first { $0.file == file && (pharmacy == nil || $0.pharmacyID == pharmacy) }, "\(file) not in the report")
    }

    @Test func aReplayedOlderExportIsSkippedAndTheNewerDataStays() throws {
        let nights = Nights()
        nights.rax("rax_a_22.txt", pharmacy: "100", exported: "20261122T2305", prices: ["1,00", "2,00"])
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20261122T2305")
        _ = try nights.run(asOf: "2026-11-23T06:00:00")
        // The next night pharmacy 100's export of 1 November turns up instead.
        try nights.remove("rax_a_22.txt")
        nights.rax("rax_a_01.txt", pharmacy: "100", exported: "20261101T2305", prices: ["9,00", "9,00"])
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20261123T2305")
        let report = try nights.run(asOf: "2026-11-24T06:00:00")
        let old = try feed(report, "rax_a_01.txt")
        #expect(old.outcome == .skipped && old.reason == "not_newer")
        #expect(old.message?.contains("2026-11-01T23:05:00+02:00, not newer than") == true)
        #expect(old.read == 0 && old.rejected == 0)
        let db = try nights.current()
        #expect(db.rows("SELECT last_refresh, stale FROM pharmacies WHERE id = '100'").first == ["2026-11-22T23:05:00+02:00", "1"])
        #expect(db.int("SELECT price_cents FROM offers WHERE pharmacy_id = '100' AND aptcode = 'MM0'") == 100)
        #expect(report.carriedOver.map(\.key) == ["100"])
        #expect(db.value("SELECT last_refresh FROM pharmacies WHERE id = '200'") == "2026-11-23T23:05:00+02:00")
    }

    @Test func theSameExportSentTwiceIsADuplicate() throws {
        let nights = Nights()
        nights.rax("rax_a.txt", pharmacy: "100", exported: "20261122T2305")
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20261122T2305")
        let first = try #require(try nights.run(asOf: "2026-11-23T06:00:00").publishedVersion)
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20261123T2305")
        let report = try nights.run(asOf: "2026-11-24T06:00:00")
        let again = try feed(report, "rax_a.txt")
        #expect(again.outcome == .skipped && again.reason == "duplicate")
        #expect(again.message?.contains(first) == true)
        // The same export time with other bytes is not newer either, and not a duplicate.
        nights.rax("rax_a.txt", pharmacy: "100", exported: "20261122T2305", prices: ["5,00"])
        let third = try nights.run(asOf: "2026-11-25T06:00:00")
        #expect(try feed(third, "rax_a.txt").reason == "not_newer")
        #expect(try nights.current().int("SELECT item_count FROM pharmacies WHERE id = '100'") == 2)
    }

    @Test func aFeedDatedInTheFutureIsRejectedAndNeverBeatsACorrectOne() throws {
        let nights = Nights()
        nights.rax("rax_a_2099.txt", pharmacy: "100", exported: "20990101T0000")
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20261122T2305")
        let report = try nights.run(asOf: "2026-11-23T06:00:00")
        let future = try feed(report, "rax_a_2099.txt")
        #expect(future.outcome == .rejected && future.reason == "export_in_future")
        #expect(future.rejectsByReason == [.exportInFuture: 2])
        #expect(try nights.current().int("SELECT count(*) FROM pharmacies WHERE id = '100'") == 0)

        // The next night the correct export comes beside the 2099 one: the correct one loads.
        nights.rax("rax_a.txt", pharmacy: "100", exported: "20261123T2305")
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20261123T2305")
        let next = try nights.run(asOf: "2026-11-24T06:00:00")
        #expect(try feed(next, "rax_a_2099.txt").reason == "export_in_future")
        #expect(try feed(next, "rax_a.txt").outcome == .loaded)
        #expect(try nights.current().value("SELECT last_refresh FROM pharmacies WHERE id = '100'") == "2026-11-23T23:05:00+02:00")

        // Within 24 hours ahead is clock skew, not the future.
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20261125T0500")
        #expect(try feed(try nights.run(asOf: "2026-11-24T07:00:00"), "rax_b.txt").outcome == .loaded)
    }

    @Test func dataDatedAfterTheRunsTimeIsNeitherAYardstickNorCarried() throws {
        // A snapshot built as of 2099 (a clock gone wrong) holds data dated 2099.
        let nights = Nights()
        nights.rax("rax_a.txt", pharmacy: "100", exported: "20990101T0000")
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20990101T0000")
        _ = try nights.run(asOf: "2099-01-01T06:00:00")
        try nights.remove("rax_a.txt")
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20261122T2305")
        let report = try nights.run(asOf: "2026-11-23T06:00:00")
        #expect(try feed(report, "rax_b.txt").outcome == .loaded)
        #expect(report.carriedOver.first { $0.key == "100" }?.dropped == true)
        #expect(report.warnings.contains { $0.code == .futureDropped && $0.key == "100" })
        #expect(report.rowCounts["pharmacies"] == 1) // the pharmacies gate then holds it back: 2 → 1
    }

    @Test func anOldExportIsAgedFromTheRunThatLoadedIt() throws {
        let nights = Nights()
        nights.rax("rax_2010.txt", pharmacy: "100", exported: "20101230T2305")
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20261122T2305")
        _ = try nights.run(asOf: "2026-11-23T06:00:00")
        let fresh = try nights.current()
        #expect(fresh.rows("SELECT last_refresh, stale, loaded_at FROM pharmacies WHERE id = '100'").first
                == ["2010-12-30T23:05:00+02:00", "0", "2026-11-23T06:00:00+02:00"])

        // Its feed stops: carried, stale, for seven days after the run that loaded it, then dropped.
        try nights.remove("rax_2010.txt")
        for day in 24...30 {
            nights.rax("rax_b.txt", pharmacy: "200", exported: "202611\(day - 1)T2305")
            let report = try nights.run(asOf: "2026-11-\(day)T06:00:00")
            #expect(report.carriedOver.map(\.key) == ["100"], "night \(day)")
            #expect(report.carriedOver.first?.dropped == false, "night \(day)")
            #expect(try nights.current().rows("SELECT stale, loaded_at FROM pharmacies WHERE id = '100'").first
                    == ["1", "2026-11-23T06:00:00+02:00"], "night \(day)")
        }
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20261130T2305")
        let dropped = try nights.run(asOf: "2026-12-01T06:00:00")
        #expect(dropped.carriedOver.first?.dropped == true)
        #expect(dropped.warnings.contains { $0.code == .staleDropped && $0.key == "100" })
        #expect(dropped.rowCounts["pharmacies"] == 1) // the pharmacies gate then holds it back: 2 → 1
    }

    // MARK: Chain files

    /// The generator's mapped CSV layout and mapping (`chain_*.csv`).
    private static let chainMapping = StockFeedWriter.mapping

    /// A chain file: `rows` as (pharmacy, aptcode, price) in the order given.
    private func writeChain(_ nights: Nights, _ file: String, date: String, rows: [(String, String, String)]) {
        var text = StockFeedWriter.csvHeader.joined(separator: ";") + "\r\n"
        for (pharmacy, aptcode, price) in rows { text += "\(pharmacy);;\(aptcode);;;\"TOODE \(aptcode)\";;;\(price);3;\(date)\r\n" }
        nights.temporary.write("feeds/\(file)", text: text)
    }

    @Test func aChainFileCountsPharmacyByPharmacyBesideANewerSingleFile() throws {
        let nights = Nights()
        nights.temporary.write("mappings/chain.mapping.toml", text: Self.chainMapping)
        // Three pharmacies, rows shuffled; 302 has one bad price in four rows (over the 5 % limit).
        writeChain(nights, "chain_x_2026-11-22.csv", date: "22.11.2026", rows: [
            ("302", "B", "2,00"), ("301", "A", "1,00"), ("303", "A", "3,00"), ("301", "B", "1,50"),
            ("302", "A", "x"), ("303", "B", "3,50"), ("301", "C", "1,75"), ("302", "C", "2,50"), ("302", "D", "2,75"),
        ])
        // 303 also sent a newer export of its own: it wins over its share of the chain file.
        nights.rax("rax_303.txt", pharmacy: "303", exported: "20261122T2300", prices: ["7,00"])
        let report = try nights.run(asOf: "2026-11-23T06:00:00")

        let p301 = try feed(report, "chain_x_2026-11-22.csv", pharmacy: "301")
        #expect(p301.outcome == .loaded && p301.read == 3 && p301.accepted == 3)
        let p302 = try feed(report, "chain_x_2026-11-22.csv", pharmacy: "302")
        #expect(p302.outcome == .rejected && p302.reason == "reject_rate_exceeded")
        #expect(p302.read == 4 && p302.rejectsByReason == [.badPrice: 1, .rejectRateExceeded: 3])
        let p303 = try feed(report, "chain_x_2026-11-22.csv", pharmacy: "303")
        #expect(p303.outcome == .superseded)
        #expect(try feed(report, "rax_303.txt").outcome == .loaded)
        #expect(report.feeds.filter { $0.file == "chain_x_2026-11-22.csv" }.map(\.pharmacyID) == ["301", "302", "303"])
        // The bad price keeps its line in the file and its field.
        let badPrice = try #require(report.rejects.first { $0.reason == .badPrice })
        #expect(badPrice.file == "chain_x_2026-11-22.csv" && badPrice.line == 6 && badPrice.key == "A" && badPrice.field == "price")

        let db = try nights.current()
        #expect(db.rows("SELECT id, item_count FROM pharmacies ORDER BY id") == [["301", "3"], ["303", "1"]])
        #expect(db.int("SELECT price_cents FROM offers WHERE pharmacy_id = '303' AND aptcode = 'MM0'") == 700)

        // The next night the chain file is newer than 303's own file, and 302 is clean: both load from it.
        writeChain(nights, "chain_x_2026-11-22.csv", date: "23.11.2026", rows: [
            ("303", "A", "3,00"), ("302", "A", "2,00"), ("301", "A", "1,00"), ("301", "B", "1,00"), ("301", "C", "1,00"),
        ])
        let next = try nights.run(asOf: "2026-11-24T06:00:00")
        #expect(try feed(next, "chain_x_2026-11-22.csv", pharmacy: "303").outcome == .loaded)
        #expect(try feed(next, "rax_303.txt").outcome == .superseded)
        #expect(try nights.current().rows("SELECT id, item_count, stale FROM pharmacies ORDER BY id")
                == [["301", "3", "0"], ["302", "1", "0"], ["303", "1", "0"]])
    }

    /// Issue 44: a chain file left from an earlier night, every part no
    /// newer than current holds, is not split again; its parts are reported
    /// as a split would report them. A file whose bytes changed, a part
    /// newer than current, or rows that named no pharmacy: split again.
    @Test func aChainFileLeftFromAnEarlierNightIsNotSplitAgain() throws {
        let nights = Nights()
        nights.temporary.write("mappings/chain.mapping.toml", text: Self.chainMapping)
        writeChain(nights, "chain_x_2026-11-22.csv", date: "22.11.2026", rows: [("301", "A", "1,00"), ("302", "A", "2,00"), ("301", "B", "1,50")])
        writeChain(nights, "chain_y_2026-11-22.csv", date: "22.11.2026", rows: [("305", "A", "1,00"), ("", "B", "2,00")])
        #expect(try nights.run(asOf: "2026-11-23T06:00:00").publishedVersion != nil)
        writeChain(nights, "chain_x_2026-11-23.csv", date: "23.11.2026", rows: [("301", "A", "1,10"), ("302", "A", "2,10"), ("301", "B", "1,60")])
        let second = try nights.run(asOf: "2026-11-24T06:00:00")
        #expect(second.publishedVersion != nil, "\(String(describing: second.blocked)) \(second.feeds.map { "\($0.file) \($0.pharmacyID ?? "-") \($0.outcome)" })")
        for pharmacy in ["301", "302"] {
            let old = try feed(second, "chain_x_2026-11-22.csv", pharmacy: pharmacy)
            #expect(old.outcome == .superseded && old.message == "a newer valid feed of pharmacy \(pharmacy) is loaded: chain_x_2026-11-23.csv")
        }

        // Tonight's folder as the third night sees it, against the second night's current.
        writeChain(nights, "chain_z_2026-11-24.csv", date: "24.11.2026", rows: [("303", "A", "1,00")])
        let previous = try #require(try PreviousSnapshot.open(nights.directory))
        let asOf = try #require(ExportTimestamp.parseISO8601("2026-11-25T06:00:00"))
        let current = try previous.currentStock(latestValid: asOf.epochSeconds + PharmacyFeedParser.futureTolerance)
        let catalog = try BuiltInFormats.catalog(mappingsDirectory: nights.mappings)
        let files = FeedClassification(try FeedInventory(directory: nights.feeds), catalog: catalog, referenceKinds: [])
        let settled = SettledChainFiles(files.chains, previous: previous, current: current, currency: "EUR")
        #expect(settled.toSplit.map(\.file.name).sorted() == ["chain_y_2026-11-22.csv", "chain_z_2026-11-24.csv"],
                "a file with rows of no pharmacy, and a new one, are split")
        #expect(settled.parts.map { "\($0.file.name) \($0.pharmacyID ?? "") \($0.header?.exportedAt.iso8601 ?? "")" }.sorted() == [
            "chain_x_2026-11-22.csv 301 2026-11-22T00:00:00+02:00", "chain_x_2026-11-22.csv 302 2026-11-22T00:00:00+02:00",
            "chain_x_2026-11-23.csv 301 2026-11-23T00:00:00+02:00", "chain_x_2026-11-23.csv 302 2026-11-23T00:00:00+02:00",
        ])
        let third = try nights.run(asOf: "2026-11-25T06:00:00")
        for pharmacy in ["301", "302"] {
            let loaded = try feed(third, "chain_x_2026-11-23.csv", pharmacy: pharmacy)
            #expect(loaded.outcome == .skipped && loaded.reason == FeedSkip.duplicate, "\(loaded)")
            #expect(try feed(third, "chain_x_2026-11-22.csv", pharmacy: pharmacy).outcome == .skipped)
        }
        #expect(try feed(third, "chain_z_2026-11-24.csv", pharmacy: "303").outcome == .loaded)

        // The same name and size with other bytes is split again.
        writeChain(nights, "chain_x_2026-11-23.csv", date: "23.11.2026", rows: [("301", "A", "1,20"), ("302", "A", "2,20"), ("301", "B", "1,70")])
        let changed = SettledChainFiles(FeedClassification(try FeedInventory(directory: nights.feeds), catalog: catalog, referenceKinds: []).chains,
                                        previous: try #require(try PreviousSnapshot.open(nights.directory)), current: current, currency: "EUR")
        #expect(changed.toSplit.map(\.file.name).contains("chain_x_2026-11-23.csv"))
    }

    @Test func aChainRowWithoutAPharmacyIsRejectedOnItsOwnAndADuplicateWithinAPharmacyToo() throws {
        let nights = Nights()
        nights.temporary.write("mappings/chain.mapping.toml", text: Self.chainMapping)
        var rows: [(String, String, String)] = (0..<30).map { ("401", "K\($0)", "1,00") }
        rows.insert(("", "X", "1,00"), at: 7)
        rows.insert(("401", "K3", "1,00"), at: 20)
        writeChain(nights, "chain_x_a.csv", date: "22.11.2026", rows: rows)
        let report = try nights.run(asOf: "2026-11-23T06:00:00")
        let rest = try #require(report.feeds.first { $0.file == "chain_x_a.csv" && $0.pharmacyID == nil })
        #expect(rest.outcome == .rejected && rest.reason == "no_pharmacy" && rest.read == 1)
        #expect(rest.rejectsByReason == [.missingField: 1])
        let part = try feed(report, "chain_x_a.csv", pharmacy: "401")
        #expect(part.outcome == .loaded && part.read == 31 && part.accepted == 30 && part.rejectsByReason == [.duplicateKey: 1])
        #expect(report.rejects.first { $0.reason == .duplicateKey }?.line == 22)
    }

    /// The report opens with one line that says how the night ended and its totals.
    @Test func theReportOpensWithItsVerdict() throws {
        let nights = Nights()
        nights.rax("rax_a.txt", pharmacy: "100", exported: "20261122T2300")
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20261122T2305", prices: Array(repeating: "1,00", count: 24) + ["x"])
        let first = try nights.run(asOf: "2026-11-23T06:00:00")
        let version = try #require(first.publishedVersion)
        #expect(first.warnings.counts == [.unknownPharmacy: 2, .noReimbursementList: 1]) // no registry, no list in this folder
        #expect(ReportFormatter().format(first, elapsed: 1.26).split(separator: "\n").prefix(2)
                == ["ingest run", "PUBLISHED \(version): 2 pharmacies (2 fresh, 0 stale), 26 offers, 1 reject, 3 warnings in 1.3 s"])
        // The next night pharmacy 200 sends nothing: it is carried over, stale.
        try FileManager.default.removeItem(atPath: "\(nights.feeds)/rax_b.txt")
        nights.rax("rax_a.txt", pharmacy: "100", exported: "20261123T2300")
        let dry = try nights.run(asOf: "2026-11-24T06:00:00", dryRun: true)
        #expect(ReportFormatter().verdict(dry) == "DRY RUN, would publish: 2 pharmacies (1 fresh, 1 stale), 26 offers, 0 rejects, 2 warnings")
    }

    /// The report lists the feeds that need a look; --verbose lists them all.
    /// A feed rejected whole says its message once, with its first lines.
    @Test func theReportShowsWhatNeedsAttentionAndEachMessageOnce() throws {
        let nights = Nights()
        nights.rax("rax_clean.txt", pharmacy: "200", exported: "20261122T2305")
        var truncated = RAXFeedBuilder(pharmacyID: "201", exportedAt: "20261122T2305")
        for index in 0..<6 { truncated.item("MM\(index)", name: "TOODE", price: "1,00") }
        truncated.includeTrailer = false
        nights.temporary.write("feeds/rax_truncated.txt", bytes: truncated.bytes)
        let report = try nights.run(asOf: "2026-11-23T06:00:00")
        let short = ReportFormatter().format(report).split(separator: "\n").map(String.init)
        #expect(short.contains { $0.hasPrefix("rax_truncated.txt ") } && !short.contains { $0.hasPrefix("rax_clean.txt ") })
        #expect(short.contains("1 more feed loaded without a reject (--verbose lists every feed)"))
        #expect(short.contains { $0.hasPrefix("total ") && $0.hasSuffix("   8         2         6") })
        let sample = short.filter { $0.contains("feed rejected whole (trailer_mismatch)") }
        #expect(sample == ["    rax_truncated.txt:2, 3, 4, … [MM0, …] feed rejected whole (trailer_mismatch): trailer (T record) missing: the file is truncated"])
        let long = ReportFormatter(verbose: true).format(report)
        #expect(long.contains("\nrax_clean.txt ") && !long.contains("--verbose lists"))
        // Every reject asked for: each line its own.
        #expect(ReportFormatter(samplesPerReason: .max).format(report).components(separatedBy: "feed rejected whole (trailer_mismatch)").count == 7)

        // An older export of the same pharmacy in the same night is superseded, not loaded: the line says so.
        let other = Nights()
        other.rax("rax_clean.txt", pharmacy: "200", exported: "20261122T2305")
        other.rax("rax_clean_older.txt", pharmacy: "200", exported: "20261121T2305")
        other.rax("rax_other.txt", pharmacy: "201", exported: "20261122T2305", prices: ["1,00", "x"])
        let again = try other.run(asOf: "2026-11-23T06:00:00")
        #expect(again.feeds.first { $0.file == "rax_clean_older.txt" }?.outcome == .superseded)
        #expect(ReportFormatter().format(again).contains("\n2 more feeds loaded or superseded without a reject (--verbose lists every feed)\n"))
    }

    /// The report's columns are as wide as their longest entry: a long mapping name never runs into the outcome.
    @Test func theReportKeepsItsColumnsForTheLongestNames() throws {
        let nights = Nights()
        nights.temporary.write("mappings/a_chain_of_sister_sites_with_a_long_name.mapping.toml", text: Self.chainMapping)
        writeChain(nights, "chain_x_a.csv", date: "22.11.2026", rows: [("401", "K", "1,00"), ("40200000000", "K", "x")])
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20261122T2305")
        let text = ReportFormatter(verbose: true).format(try nights.run(asOf: "2026-11-23T06:00:00"))
        let lines = text.split(separator: "\n").map(String.init)
        let header = try #require(lines.first { $0.hasPrefix("FILE") })
        let outcomeColumn = try #require(header.range(of: "OUTCOME")).lowerBound.utf16Offset(in: header)
        let adapterColumn = try #require(header.range(of: "ADAPTER")).lowerBound.utf16Offset(in: header)
        let rows = lines.filter { $0.hasPrefix("chain_x_a.csv") || $0.hasPrefix("rax_b.txt") }
        #expect(rows.count == 3)
        for row in rows {
            let characters = Array(row)
            #expect(characters[outcomeColumn - 1] == " " && characters[outcomeColumn] != " ", "\(row)")
            #expect(characters[adapterColumn - 1] == " " && characters[adapterColumn] != " ", "\(row)")
        }
        #expect(rows.contains { $0.contains("mapping:a_chain_of_sister_sites_with_a_long_name  rejected") })
    }

    @Test func aFileTwoAdaptersClaimIsRejectedAndTheNightGoesOn() throws {
        let nights = Nights()
        nights.temporary.write("mappings/chain.mapping.toml", text: Self.chainMapping)
        nights.temporary.write("mappings/twin.mapping.toml", text: Self.chainMapping)
        writeChain(nights, "chain_x_a.csv", date: "22.11.2026", rows: [("401", "K", "1,00")])
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20261122T2305")
        let report = try nights.run(asOf: "2026-11-23T06:00:00")
        let ambiguous = try feed(report, "chain_x_a.csv")
        #expect(ambiguous.outcome == .rejected && ambiguous.reason == "ambiguous")
        #expect(ambiguous.message?.contains("mapping:chain, mapping:twin") == true)
        #expect(report.publishedVersion != nil)
        #expect(try feed(report, "rax_b.txt").outcome == .loaded)
    }

    @Test func aNamedMappingsFolderMustExistAndTheDefaultMayBeAbsent() throws {
        let nights = Nights()
        nights.rax("rax_b.txt", pharmacy: "200", exported: "20261122T2305")
        var options = ImportOptions(feedsDirectory: nights.feeds, snapshotsDirectory: nights.snapshots,
                                    mappingsDirectory: "\(nights.temporary.path)/no-such-folder", parseThreads: 1)
        options.mappingsDirectoryRequired = true
        #expect(throws: ImportError.self) { try ImportRun(options: options).run() }
        #expect(!FileManager.default.fileExists(atPath: nights.snapshots))

        options.mappingsDirectoryRequired = false
        let report = try ImportRun(options: options).run()
        #expect(report.publishedVersion != nil)
        #expect(report.warnings.contains { $0.code == .defaultPriceRules && $0.message.contains("built-in fee periods") })
    }

    @Test func fileNamesAreBytesReadWhateverTheyHoldAndShownEscaped() throws {
        let nights = Nights()
        func write(_ name: [UInt8], pharmacy: String) throws {
            var feed = RAXFeedBuilder(pharmacyID: pharmacy, exportedAt: "20261122T2305")
            feed.item("A1")
            let path = Array(nights.feeds.utf8) + [UInt8(ascii: "/")] + name + [0]
            let descriptor = path.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) } }
            #expect(descriptor >= 0)
            let bytes = feed.bytes
            #expect(bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
            close(descriptor)
        }
        try write(Array("rax_".utf8) + [0xD5] + Array("ismae.txt".utf8), pharmacy: "101") // a cp1257 Õ
        try write(Array("rax_two\nlines.txt".utf8), pharmacy: "102")
        try write(Array("rax_tõru.txt".utf8), pharmacy: "103")
        let report = try nights.run(asOf: "2026-11-23T06:00:00")
        #expect(report.feeds.map(\.file) == ["rax_\\xD5ismae.txt", "rax_two\\nlines.txt", "rax_tõru.txt"])
        #expect(report.feeds.allSatisfy { $0.outcome == .loaded && $0.accepted == 1 })
        #expect(try nights.current().int("SELECT count(*) FROM pharmacies") == 3)
        #expect(ReportFormatter(verbose: true).format(report).contains("rax_\\xD5ismae.txt"))
    }

    @Test func aPriceListWithoutStockLevelsLoadsWithQuantityNull() throws {
        let nights = Nights()
        // The generator's mapping without its quantity column: a sister site's price list.
        let priceList = Self.chainMapping.replacingOccurrences(of: "quantity = \"kogus\"\n", with: "")
        #expect(priceList != Self.chainMapping)
        nights.temporary.write("mappings/chain.mapping.toml", text: priceList)
        writeChain(nights, "chain_x_a.csv", date: "22.11.2026", rows: [("501", "A", "1,00"), ("501", "B", "2,00")])
        let report = try nights.run(asOf: "2026-11-23T06:00:00")
        let list = try feed(report, "chain_x_a.csv", pharmacy: "501")
        #expect(list.outcome == .loaded && list.accepted == 2)
        #expect(list.message == "stock not reported: a price list, its 2 offers have no quantity (NULL)")
        #expect(try nights.current().rows("SELECT aptcode, price_cents, quantity FROM offers ORDER BY aptcode") == [["A", "100", nil], ["B", "200", nil]])
    }
}
