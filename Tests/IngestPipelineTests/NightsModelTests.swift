import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// Issue 32's model test: seeded scenarios of many nights (feeds missing,
/// replayed, dated in the future, cut short, copied from another branch,
/// formats switching between RAX 3.1, 3.2 and Noom, a new reimbursement list
/// by its date, registry renames, staleness past the limit, re-runs,
/// rollbacks, a damaged `current`, an upgrade from the previous schema),
/// each published snapshot held row by row to `NightsModel`'s oracle and
/// every run's outcome to what the spec says it must be.
///
/// `make test` runs the seeds below; `make nights` runs many
/// (`INGEST_NIGHTS_SEEDS=1-200 INGEST_NIGHTS=12`). A failing seed is shrunk
/// to its smallest failing scenario, which the failure prints.
@Suite struct NightsModelTests {
    /// The seeds CI runs, and how many nights each (seeds 2, 4 and 8 re-run
    /// a night with a copied branch; each catches the re-run letting it through).
    static let ciSeeds: [UInt64] = Array(1...10)
    static let ciNights = 12

    @Test func everyPublishedSnapshotIsWhatTheSpecSays() throws {
        let environment = ProcessInfo.processInfo.environment
        let seeds = environment["INGEST_NIGHTS_SEEDS"].map(Self.seeds) ?? Self.ciSeeds
        let nights = environment["INGEST_NIGHTS"].flatMap { Int($0) } ?? Self.ciNights
        var failed = 0
        for seed in seeds {
            let scenario = NightsModel.Scenario(seed: seed, count: nights)
            let differences = try Self.differences(scenario)
            guard !differences.isEmpty else { continue }
            failed += 1
            let smallest = try Self.shrink(scenario)
            Issue.record("""
                seed \(seed): \(differences.count) differences from the oracle, first: \(differences.prefix(5).joined(separator: " | "))
                smallest failing scenario:
                \(smallest.scenario)
                its differences: \(smallest.differences.prefix(8).joined(separator: " | "))
                """)
        }
        print("nights model: \(seeds.count) seeds × \(nights) nights, \(failed) with a difference from the oracle")
    }

    /// `1-200` or `3,5,8`.
    static func seeds(_ text: String) -> [UInt64] {
        text.split(separator: ",").flatMap { part -> [UInt64] in
            let bounds = part.split(separator: "-").compactMap { UInt64($0) }
            return bounds.count == 2 ? Array(bounds[0]...bounds[1]) : bounds
        }
    }

    /// Fewer nights, then plainer events, while it still fails.
    static func shrink(_ scenario: NightsModel.Scenario) throws -> (scenario: NightsModel.Scenario, differences: [String]) {
        var smallest = (scenario: scenario, differences: try differences(scenario))
        var improved = true
        var tries = 0
        while improved, tries < 400 {
            improved = false
            for candidate in smallest.scenario.shrinkCandidates() {
                tries += 1
                let found = try differences(candidate)
                if !found.isEmpty {
                    smallest = (candidate, found)
                    improved = true
                    break
                }
            }
        }
        return smallest
    }

    // MARK: One scenario against the oracle

    /// Every difference between what the importer did and what the oracle says, night by night.
    static func differences(_ scenario: NightsModel.Scenario) throws -> [String] {
        let temporary = TemporaryDirectory()
        let feeds = "\(temporary.path)/feeds"
        let mappings = temporary.subdirectory("mappings")
        try FileManager.default.copyItem(atPath: "\(RepositoryFiles.mappingsDirectory)/patient_price_rules.toml",
                                         toPath: "\(mappings)/patient_price_rules.toml")
        let directory = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        let secondFrom = NightsModel.localDate(NightsModel.runEpoch(night: scenario.secondListNight))
        let lists = NightsModel.lists(secondFrom: secondFrom)
        var found: [String] = []
        /// The oracle's state of every published version, and of `current`.
        var states: [String: (state: NightsModel.State, listIndex: Int, registry: Int, oldSchema: Bool)] = [:]
        var current: (version: String, state: NightsModel.State, listIndex: Int, registry: Int, oldSchema: Bool)?
        var published: [String] = []
        var sentBefore: [String: NightsModel.Sent] = [:]
        var renames = 0

        for (number, night) in scenario.nights.enumerated() {
            let run = NightsModel.runEpoch(night: number)
            if night.registryRename { renames += 1 }
            // Tonight's folder: registry, both lists, and each pharmacy's file.
            try? FileManager.default.removeItem(atPath: feeds) // absent on the first night
            try FileManager.default.createDirectory(atPath: feeds, withIntermediateDirectories: true)
            try Data(registry(renames: renames).utf8).write(to: URL(fileURLWithPath: "\(feeds)/pharmacies.csv"))
            for list in lists { try Data(reimbursementXML(list).utf8).write(to: URL(fileURLWithPath: "\(feeds)/reimbursement_\(list.validFrom).xml")) }
            var sent: [String: NightsModel.Sent] = [:]
            var files: [String: (event: NightsModel.Event, sent: NightsModel.Sent)] = [:]
            let itemNames = Dictionary(uniqueKeysWithValues: NightsModel.items.map {
                ($0.aptcode, NightsModel.name(of: $0, night: number, correctionNight: scenario.nameCorrectionNight))
            })
            for id in NightsModel.pharmacies {
                let name = feedName(id)
                let event = night.events[id]!
                var file: NightsModel.Sent?
                switch event {
                case .send(let format):
                    let offers = NightsModel.stock(id, night: number, seed: scenario.seed)
                    let exported = NightsModel.exportEpoch(night: number)
                    file = NightsModel.Sent(format: format, night: number, exported: exported, offers: offers,
                                            file: NightsModel.feed(format, id: id, name: name, exported: exported, offers: offers, names: itemNames))
                    sent[id] = file
                case .missing: break
                case .replay: file = sentBefore[id]
                case .future, .truncated:
                    let offers = NightsModel.stock(id, night: number, seed: scenario.seed)
                    let exported = event == .future ? run + 2 * 86_400 : NightsModel.exportEpoch(night: number)
                    file = NightsModel.Sent(format: .rax32, night: number, exported: exported, offers: offers,
                                            file: NightsModel.feed(.rax32, id: id, name: name, exported: exported, offers: offers, names: itemNames,
                                                                   truncated: event == .truncated))
                case .copyOf: break
                }
                if let file {
                    files[id] = (event, file)
                    try file.file.bytes.write(to: URL(fileURLWithPath: "\(feeds)/\(file.file.name)"))
                }
            }
            for id in NightsModel.pharmacies {
                guard case .copyOf(let original) = night.events[id]!, let source = sent[original] else { continue }
                let exported = source.exported + 60
                let copy = NightsModel.Sent(format: source.format, night: number, exported: exported, offers: source.offers,
                                            file: NightsModel.feed(source.format, id: id, name: feedName(id), exported: exported, offers: source.offers,
                                                                   names: itemNames))
                files[id] = (night.events[id]!, copy)
                try copy.file.bytes.write(to: URL(fileURLWithPath: "\(feeds)/\(copy.file.name)"))
            }
            for (id, file) in sent { sentBefore[id] = file }

            func importRun(hours: Int) throws -> RunReport {
                var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: directory.path, mappingsDirectory: mappings,
                                            parseThreads: 2, now: Date(timeIntervalSince1970: TimeInterval(run + Int64(hours) * 3600)),
                                            asOf: Date(timeIntervalSince1970: TimeInterval(run + Int64(hours) * 3600)))
                options.maxStaleDays = Int(NightsModel.maxStaleDays)
                options.gates = QualityGates(maxOfferDropPercent: 100, maxPharmacyDropPercent: 100)
                options.gates.minFreshSharePercent = 0 // the gates have their own tests; the model judges the data
                options.checks = StockDataChecks(duplicateMinItems: 5)
                options.retention = 100
                return try ImportRun(options: options).run()
            }

            // A damaged current stops the run (exit 70) and publishes nothing; then it is mended.
            if night.damageCurrent, let current {
                try FileManager.default.removeItem(atPath: directory.currentPath)
                try FileManager.default.copyItem(atPath: directory.snapshotPath(current.version), toPath: directory.currentPath)
                do {
                    _ = try importRun(hours: 0)
                    found.append("night \(number): a run on a damaged current did not stop")
                } catch ImportError.currentUnreadable {}
                if try directory.versions() != published.sorted() { found.append("night \(number): a run on a damaged current published") }
                try FileManager.default.removeItem(atPath: directory.currentPath)
                try FileManager.default.createSymbolicLink(atPath: directory.currentPath, withDestinationPath: "\(current.version).sqlite")
            }

            /// One run of the night `hours` after 06:00, held to the oracle's answer from `current`.
            func attempt(hours: Int, label: String) throws {
                let time = run + Int64(hours) * 3600
                let listIndex = lists.lastIndex { $0.validFrom <= NightsModel.localDate(time) }!
                let expected = oracle(previous: current?.state, files: files, run: time, renames: renames, correctionNight: scenario.nameCorrectionNight,
                                      previousHasHistory: !(current?.oldSchema ?? false))
                let nothingNew = current.map { !$0.oldSchema && $0.state == expected && $0.listIndex == listIndex && $0.registry == renames } ?? false
                let report: RunReport
                do { report = try importRun(hours: hours) } catch {
                    // A run that fails is a difference like any other, so the seed can still be shrunk.
                    found.append("\(label): the run failed: \(error)")
                    return
                }
                if (current?.oldSchema ?? false), report.warningCounts[.tableNotInCurrent] != 1 {
                    found.append("\(label): no table_not_in_current warning on the night after an upgrade")
                }
                if expected.pharmacies.values.allSatisfy(\.stale) {
                    // No pharmacy fresh tonight: the feeds did not come, and yesterday is not published as tonight (issue 44).
                    guard case .noStockFeed? = report.blocked, report.publishedVersion == nil else {
                        found.append("\(label): no pharmacy is fresh, expected no_stock_feed, got \(report.publishedVersion ?? "no version") blocked=\(String(describing: report.blocked))")
                        return
                    }
                } else if nothingNew {
                    if !report.nothingNew || report.publishedVersion != nil {
                        found.append("\(label): expected nothing new to publish, got \(report.publishedVersion ?? "no version") nothingNew=\(report.nothingNew)")
                    }
                } else if let version = report.publishedVersion {
                    published.append(version)
                    found += compare(directory.snapshotPath(version), expected, list: lists[listIndex], label: label)
                    found += changesetProblems(version, after: current?.version, upgraded: current?.oldSchema ?? false, in: directory, label: label)
                    current = (version, expected, listIndex, renames, false)
                    states[version] = (expected, listIndex, renames, false)
                } else {
                    found.append("\(label): expected a publish, got nothingNew=\(report.nothingNew) blocked=\(String(describing: report.blocked))")
                }
            }
            try attempt(hours: 0, label: "night \(number)")
            // A cron retry three hours on: the same files; only time may have moved a pharmacy past the stale limit.
            if night.rerun { try attempt(hours: 3, label: "night \(number) re-run") }
            if number == 0, scenario.upgradeAfterFirstNight, let version = current?.version {
                try AcrossNightsTests.downgrade(version, in: directory)
                current?.oldSchema = true
                states[version]?.oldSchema = true
            }
            if night.rollback, published.count >= 2, let now = current?.version, let index = published.firstIndex(of: now), index > 0 {
                let back = published[index - 1]
                try SnapshotPublisher(directory: directory).switchCurrent(to: back)
                let kept = states[back]!
                current = (back, kept.state, kept.listIndex, kept.registry, kept.oldSchema)
            }
        }
        return found
    }

    /// What tonight's snapshot must hold, from yesterday's and tonight's files (SNAPSHOT.md, FEEDS.md).
    static func oracle(previous: NightsModel.State?, files: [String: (event: NightsModel.Event, sent: NightsModel.Sent)],
                       run: Int64, renames: Int, correctionNight: Int, previousHasHistory: Bool = true) -> NightsModel.State {
        var state = NightsModel.State()
        var mentions: [String: String] = [:] // aptcode → package code, from tonight's loaded feeds
        var named: [String: String] = [:] // aptcode → name, from tonight's first loaded feed to mention it
        for id in NightsModel.pharmacies {
            let old = previous?.pharmacies[id]
            var loaded: NightsModel.Sent?
            if let (event, file) = files[id] {
                let valid: Bool
                switch event {
                case .truncated: valid = false                          // trailer_mismatch
                case .copyOf: valid = false                             // duplicate_stock: the newer copy of tonight's stock
                default: valid = file.exported <= run + 86_400          // else export_in_future
                }
                // Time only moves forward: nothing at least as old as what current holds is loaded.
                if valid, old.map({ file.exported > $0.lastRefresh }) ?? true { loaded = file }
            }
            if let loaded {
                let offers = Dictionary(uniqueKeysWithValues: loaded.offers.map { ($0.aptcode, (cents: $0.shelfCents(loaded.format), quantity: $0.quantity)) })
                let (name, region) = registryEntry(id, renames: renames) ?? (NightsModel.unregisteredName, "UNKNOWN")
                state.pharmacies[id] = NightsModel.Pharmacy(name: name, region: region, lastRefresh: loaded.exported, loadedAt: run, stale: false, offers: offers)
                for offer in loaded.offers where named[offer.aptcode] == nil {
                    let item = NightsModel.items.first { $0.aptcode == offer.aptcode }!
                    named[offer.aptcode] = NightsModel.name(of: item, night: loaded.night, correctionNight: correctionNight)
                }
                if loaded.format != .rax31 {
                    for offer in loaded.offers {
                        if let code = NightsModel.items.first(where: { $0.aptcode == offer.aptcode })?.packageCode { mentions[offer.aptcode] = code }
                    }
                }
            } else if var kept = old, kept.loadedAt >= run - NightsModel.maxStaleDays * 86_400 {
                // Carried: stale unless a run of tonight's date loaded it.
                kept.stale = NightsModel.localDate(kept.loadedAt) != NightsModel.localDate(run)
                if let (name, region) = registryEntry(id, renames: renames) { (kept.name, kept.region) = (name, region) }
                state.pharmacies[id] = kept
            }
        }
        // SNAPSHOT.md "Price history": yesterday's rows of every offer still held (a `current`
        // without the table gives each of its offers one row, since its export), and a row
        // where tonight's price differs from the latest.
        for (id, pharmacy) in state.pharmacies {
            for (aptcode, offer) in pharmacy.offers {
                var rows: [[Int64]] = []
                if let old = previous?.pharmacies[id], let before = old.offers[aptcode] {
                    rows = previousHasHistory ? previous?.history["\(id) \(aptcode)"] ?? [] : [[old.lastRefresh, before.cents]]
                }
                if rows.last?[1] != offer.cents { rows.append([pharmacy.lastRefresh, offer.cents]) }
                state.history["\(id) \(aptcode)"] = rows
            }
        }
        for aptcode in Set(state.pharmacies.values.flatMap(\.offers.keys)) {
            // Schema 5: tonight's mentions first, yesterday's row fills what they leave empty.
            let known: String? = previous?.itemPackages[aptcode].flatMap { $0 }
            let package: String? = mentions[aptcode] ?? known
            state.itemPackages.updateValue(package, forKey: aptcode)
            state.itemNames[aptcode] = named[aptcode] ?? previous?.itemNames[aptcode] ?? NightsModel.items.first { $0.aptcode == aptcode }!.name
        }
        return state
    }

    /// Every row the snapshot must hold against what it holds.
    static func compare(_ path: String, _ expected: NightsModel.State, list: NightsModel.ReimbursementList, label: String) -> [String] {
        guard let query = try? SnapshotQuery(path) else { return ["\(label): the snapshot does not open"] }
        var found: [String] = []
        let pharmacies = expected.pharmacies.keys.sorted().map { id -> [String?] in
            let pharmacy = expected.pharmacies[id]!
            return [id, pharmacy.name, pharmacy.region, NightsModel.iso(pharmacy.lastRefresh), "\(pharmacy.offers.count)", pharmacy.stale ? "1" : "0"]
        }
        let gotPharmacies = query.rows("SELECT id, name, region, last_refresh, item_count, stale FROM pharmacies ORDER BY id")
        if gotPharmacies != pharmacies { found.append("\(label) pharmacies: expected \(pharmacies), got \(gotPharmacies)") }
        let offers = expected.pharmacies.keys.sorted().flatMap { id in
            expected.pharmacies[id]!.offers.keys.sorted().map { aptcode in
                let offer = expected.pharmacies[id]!.offers[aptcode]!
                return NightsModel.offerRow(pharmacy: id, aptcode: aptcode, cents: offer.cents, quantity: offer.quantity,
                                            package: expected.itemPackages[aptcode] ?? nil, list: list)
            }
        }
        let gotOffers = query.rows("""
            SELECT pharmacy_id, aptcode, price_cents, quantity, limit_price_cents, price_50_cents, price_75_cents, price_90_cents, price_100_cents
            FROM offers ORDER BY pharmacy_id, aptcode
            """)
        if gotOffers != offers {
            let missing = offers.filter { !gotOffers.contains($0) }.prefix(3)
            let extra = gotOffers.filter { !offers.contains($0) }.prefix(3)
            found.append("\(label) offers: \(offers.count) expected, \(gotOffers.count) got; expected but not there: \(Array(missing)); there but not expected: \(Array(extra))")
        }
        let items = expected.itemPackages.keys.sorted().map { aptcode -> [String?] in
            [aptcode, expected.itemPackages[aptcode]!, expected.itemNames[aptcode]]
        }
        let history = expected.history.keys.sorted().flatMap { key in
            expected.history[key]!.map { row -> [String?] in
                let parts = key.split(separator: " ").map(String.init)
                return [parts[0], parts[1], NightsModel.iso(row[0]), "\(row[1])"]
            }
        }
        // Schema 5: every price an offer has had is in `prices_over_time`; the one in force is
        // the offer's (`price_since`), only the replaced ones are rows of `price_history`.
        let replaced = expected.history.keys.sorted().flatMap { key in
            expected.history[key]!.dropLast().map { row -> [String?] in
                let parts = key.split(separator: " ").map(String.init)
                return [parts[0], parts[1], NightsModel.iso(row[0]), "\(row[1])"]
            }
        }
        let inForce = expected.history.keys.sorted().compactMap { key -> [String?]? in
            guard let row = expected.history[key]!.last else { return nil }
            let parts = key.split(separator: " ").map(String.init)
            return [parts[0], parts[1], NightsModel.iso(row[0]), "\(row[1])"]
        }
        for (table, rows, sql) in [
            ("prices_over_time", history, "SELECT pharmacy_id, aptcode, since, price_cents FROM prices_over_time ORDER BY pharmacy_id, aptcode, since"),
            ("price_history", replaced, "SELECT pharmacy_id, aptcode, since, price_cents FROM price_history ORDER BY pharmacy_id, aptcode, since"),
            ("offers.price_since", inForce, "SELECT pharmacy_id, aptcode, price_since, price_cents FROM offers ORDER BY pharmacy_id, aptcode"),
        ] {
            let got = query.rows(sql)
            guard got != rows else { continue }
            let missing = rows.filter { !got.contains($0) }.prefix(3)
            let extra = got.filter { !rows.contains($0) }.prefix(3)
            found.append("\(label) \(table): \(rows.count) expected, \(got.count) got; expected but not there: \(Array(missing)); there but not expected: \(Array(extra))")
        }
        let gotItems = query.rows("SELECT aptcode, package_code, name FROM items ORDER BY aptcode")
        if gotItems != items { found.append("\(label) items: expected \(items), got \(gotItems)") }
        return found
    }

    /// The night's changeset (SNAPSHOT.md, schema 5: made by the night):
    /// there whenever `current` had this schema, from `current`, matching its
    /// manifest, and turning a copy of `current` into the new version
    /// exactly, every table and `meta` alike; and the nightly changesets
    /// combined turn every kept version that a chain of them joins to the
    /// new one into it exactly too.
    static func changesetProblems(_ version: String, after previous: String?, upgraded: Bool, in directory: SnapshotDirectory, label: String) -> [String] {
        guard let previous else { return [] }
        do {
            let manifest = try directory.readManifest(version)
            guard let nightly = manifest.changeset else {
                return upgraded ? [] : ["\(label): no changeset from \(previous) beside \(version)"]
            }
            if upgraded { return ["\(label): a changeset across a schema upgrade"] }
            if nightly.from != previous { return ["\(label): the changeset is from \(nightly.from), current was \(previous)"] }
            var found: [String] = []
            for from in try directory.versions() where from != version {
                guard let data = try ChangesetChain.changeset(from: from, to: version, in: directory) else { continue }
                let copy = directory.path + "/.model-copy.sqlite"
                unlink(copy)
                defer { unlink(copy) }
                try FileManager.default.copyItem(atPath: directory.snapshotPath(from), toPath: copy)
                try SnapshotChangeset.apply(data, to: copy)
                if let difference = try SnapshotContent.difference(old: copy, new: directory.snapshotPath(version), ignoring: []) {
                    found.append("\(label): the changeset from \(from) applied to it differs from \(version): \(difference)")
                }
            }
            return found
        } catch {
            return ["\(label): the changeset cannot be checked: \(error)"]
        }
    }

    // MARK: Reference files of the model

    static func feedName(_ id: String) -> String { id == NightsModel.unregistered ? NightsModel.unregisteredName : "APTEEK \(id)" }

    /// The registry's name and region of a pharmacy after `renames` renames; nil for the unregistered one.
    static func registryEntry(_ id: String, renames: Int) -> (String, String)? {
        guard NightsModel.registered.contains(id) else { return nil }
        return ("APTEEK \(id)" + (renames > 0 ? " \(renames)" : ""), Int(id)! % 2 == 0 ? "TARTU" : "TALLINN")
    }

    static func registry(renames: Int) -> String {
        var lines = ["id,name,chain_id,region,address,phone,open_hours,latitude,longitude"]
        for id in NightsModel.registered {
            let (name, region) = registryEntry(id, renames: renames)!
            lines.append("\(id),\(name),1,\(region),Tee \(id),+372-600-\(id),E-P 9-21,59.\(id),24.\(id)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func reimbursementXML(_ list: NightsModel.ReimbursementList) -> String {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<reimbursementList validFrom=\"\(list.validFrom)\">\n"
        for code in list.entries.keys.sorted() {
            let entry = list.entries[code]!
            xml += "  <package code=\"\(code)\">\n    <limitPrice>\(entry.limitCents / 100).\(String(format: "%02d", entry.limitCents % 100))</limitPrice>\n"
            for rate in entry.rates { xml += "    <tier rate=\"\(rate)\"/>\n" }
            xml += "  </package>\n"
        }
        return xml + "</reimbursementList>\n"
    }
}
