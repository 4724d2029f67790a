import Foundation
import IngestAdapters
import IngestCore
import IngestSnapshot

/// The writer side of a run: takes parsed pharmacies in id order from the
/// parse threads and writes their offers; pharmacies of the previous
/// snapshot whose feed is missing or rejected tonight are carried over in
/// their place in the key order, stale, until they are too old.
final class StockLoader {
    let writer: SnapshotWriter
    /// Registry details by pharmacy id, and what the register and GS1 add to items.
    let registry: [String: PharmacyRecord]
    let enrichment: ItemEnrichment
    let pricer: TierPricer
    let previous: PreviousSnapshot?
    /// Which previous pharmacies are due when, and whether each may be kept.
    private var carryOver: CarryOverPlan
    /// The run's time, stamped on every pharmacy loaded fresh tonight.
    let loadedAt: String
    /// The run's service-local date: data first loaded by a run of this date counts as tonight's.
    let runDate: String

    private(set) var items: ItemCatalog
    private(set) var pharmacies: [PharmacyRow] = []
    /// Items whose package code arrived only with a later pharmacy's feed,
    /// and the index (into `pharmacies`) of that pharmacy: offers of the
    /// pharmacies before it were written without tier prices and are priced
    /// at the end. Memory grows with items, never with offers.
    private var latePriced: [(aptcode: String, before: Int)] = []

    /// Offers handed to the writer at a time.
    static let batchRows = 8192

    /// The checks' limits (for the price sample's size), the catalogue's
    /// gates that judge each pharmacy's feed (issue 22), and whether --force
    /// loads what they fail.
    let checks: StockDataChecks
    let gates: [any Gate]
    let force: Bool
    /// How each of `gates` went over the run, in their order.
    private var summaries: [CheckSummary]
    /// Tonight's changes to prices, merged as offers are written; nil on a first night.
    let history: PriceHistoryDelta?
    /// Every stock the snapshot will hold by its item-line digest, to find
    /// one pharmacy's stock under another's id: tonight's loaded feeds and
    /// the pharmacies carried from `current` (skipped as unchanged
    /// included), so a re-run catches what the first run caught.
    private var digests: [UInt64: HeldStock] = [:]

    /// One pharmacy's stock in the snapshot being built, for the duplicate check.
    private struct HeldStock {
        var pharmacyID: String
        var exportedAt: Int64
        var file: String
        var index: Int
        /// The feed it was loaded from tonight; nil for stock carried from `current`, which is never the copy.
        var candidate: StockFeedPlan.Candidate?
    }

    init(writer: SnapshotWriter, reference: ReferenceData, pricer: TierPricer, previous: PreviousSnapshot?, asOf: ExportTimestamp, maxStaleDays: Int,
         checks: StockDataChecks = StockDataChecks(), gates: GateCatalog? = nil, force: Bool = false) throws {
        self.checks = checks
        self.gates = (gates ?? GateCatalog.builtIn(gates: QualityGates(), checks: checks)).gates(.pharmacy)
        self.force = force
        summaries = self.gates.map { CheckSummary(check: $0.name, limit: $0.limit) }
        self.writer = writer
        items = ItemCatalog(overflow: try ItemOverflow(writer: writer), yesterday: previous.map { previous in { try previous.item($0) } })
        registry = reference.registry
        enrichment = ItemEnrichment(reference)
        self.pricer = pricer
        self.previous = previous
        history = try previous.map { try PriceHistoryDelta(writer: writer, previous: $0) }
        carryOver = CarryOverPlan(previousIDs: previous.map { Array($0.pharmacies.keys) } ?? [], asOf: asOf, maxStaleDays: maxStaleDays)
        self.loadedAt = asOf.iso8601
        runDate = asOf.localDate
    }

    /// One pharmacy's parse result, in plan order.
    func take(_ result: PharmacyFeedParser.Result, report: inout RunReport) throws {
        defer {
            result.rejects.discard()
            result.warnings.discard()
            result.offers.discard()
        }
        if let failure = result.failure { throw failure }
        report.feeds += result.feeds
        try report.rejects += result.rejects
        try report.warnings += result.warnings
        guard let pharmacyID = result.pharmacyID else { return }
        try carryPrevious(before: pharmacyID, report: &report)
        guard let header = result.header else {
            // Every feed of this pharmacy was rejected tonight: keep yesterday's.
            carryOver.handled(pharmacyID)
            try carry(pharmacyID, report: &report)
            return
        }
        carryOver.handled(pharmacyID)
        if let problem = try judge(result, header: header, report: &report) {
            try reject(result, problem, report: &report)
            try carry(pharmacyID, report: &report)
            return
        }
        let period = pricer.period(on: header.exportedAt.localDate)
        var rows: [OfferRow] = []
        rows.reserveCapacity(min(result.offers.count, Self.batchRows))
        let tracking = !pricer.catalog.isEmpty
        let tonight = header.exportedAt.iso8601
        let merge = try history?.merge(pharmacyID, tonight: tonight)
        // In batches: a feed of millions of offers is read from its spill a
        // buffer at a time and never held whole.
        try result.offers.forEach { offer in
            let since = try merge?.offer(offer.aptcode, offer.priceCents) ?? tonight
            let known = try items.add(offer)
            if tracking, known.existed, known.packageCode == nil, offer.packageCode != nil {
                latePriced.append((offer.aptcode, pharmacies.count))
            }
            var row = OfferRow(aptcode: offer.aptcode, priceCents: offer.priceCents, priceSince: since, quantity: offer.quantity)
            if let period { pricer.price(&row, packageCode: offer.packageCode ?? known.packageCode, period: period) }
            rows.append(row)
            if rows.count == Self.batchRows {
                try writer.writeOffers(pharmacyID: pharmacyID, rows)
                rows.removeAll(keepingCapacity: true)
            }
        }
        try writer.writeOffers(pharmacyID: pharmacyID, rows)
        try merge?.finish()
        try pharmacies.append(pharmacyRow(header, offers: result.offers.count, report: &report))
    }

    /// After the last pharmacy: the remaining carry-overs, late tier prices,
    /// items and pharmacies.
    func finish(report: inout RunReport) throws {
        try carryPrevious(before: nil, report: &report)
        report.checks = summaries
        try priceLateOffers()
        var batch: [ItemRow] = []
        try items.forEachSorted { item in
            var item = item
            var warnings: [Warning] = []
            enrichment.enrich(&item, warnings: &warnings)
            try report.warnings += warnings
            batch.append(item)
            if batch.count == Self.batchRows {
                try writer.writeItems(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try writer.writeItems(batch)
        // A pharmacy evicted as a duplicate with nothing to carry leaves an empty slot (itemCount -1).
        let written = pharmacies.filter { $0.itemCount >= 0 }
        report.stalePharmacies = written.filter(\.stale).count
        try writer.writePharmacies(written)
    }

    /// Offers written before their item's package code was known.
    private func priceLateOffers() throws {
        guard !latePriced.isEmpty else { return }
        var updates: [(pharmacyID: String, row: OfferRow)] = []
        for (aptcode, before) in latePriced {
            for pharmacy in pharmacies[..<before] {
                guard var row = try writer.offer(pharmacyID: pharmacy.id, aptcode: aptcode), row.limitPriceCents == nil,
                      let date = ExportTimestamp.parseISO8601(pharmacy.lastRefresh)?.localDate else { continue }
                if pricer.price(&row, packageCode: try items.packageCode(of: aptcode), exportDate: date) { updates.append((pharmacy.id, row)) }
            }
        }
        updates.sort { ($0.pharmacyID.utf8.lexicographicallyPrecedes($1.pharmacyID.utf8)) || ($0.pharmacyID == $1.pharmacyID && $0.row.aptcode.utf8.lexicographicallyPrecedes($1.row.aptcode.utf8)) }
        try writer.updateTierPrices(updates)
    }

    /// Carries every previous pharmacy that sorts before `pharmacyID` (all, for nil).
    private func carryPrevious(before pharmacyID: String?, report: inout RunReport) throws {
        for next in carryOver.due(before: pharmacyID) { try carry(next, report: &report) }
    }

    /// Keeps a pharmacy's offers from `current`, stale. Their age is how long
    /// the pharmacy has gone without a valid feed, counted on the run's
    /// clock from the run that last loaded them (`loaded_at`), whatever date
    /// the export itself bore: a feed loaded tonight is fresh tonight and is
    /// carried for `maxStaleDays` after, however old its export date.
    private func carry(_ pharmacyID: String, report: inout RunReport) throws {
        var lines = TableDigest()
        guard let kept = try kept(pharmacyID, report: &report, write: { rows in
            for row in rows { lines.add(Self.itemLine(aptcode: row.aptcode, priceCents: row.priceCents, quantity: row.quantity)) }
            try writer.writeOffers(pharmacyID: pharmacyID, rows)
        }) else { return }
        pharmacies.append(kept)
        let held = HeldStock(pharmacyID: pharmacyID, exportedAt: ExportTimestamp.parseISO8601(kept.lastRefresh)?.epochSeconds ?? 0,
                             file: "its data in version \(previous?.version ?? "")", index: pharmacies.count - 1, candidate: nil)
        guard let other = digests[lines.value] else {
            digests[lines.value] = held
            return
        }
        // A feed loaded earlier tonight repeats stock the snapshot keeps for
        // this pharmacy: that feed is the copy, whatever its date.
        guard let candidate = other.candidate else { return }
        let twin = PharmacyEvidence.Twin(copy: other.pharmacyID, copyFile: other.file, original: pharmacyID, originalFile: held.file,
                                         carriedFrom: previous?.version ?? "")
        let evidence = GateEvidence.pharmacy(PharmacyEvidence(pharmacyID: pharmacyID, items: kept.itemCount, twin: twin))
        for (index, gate) in gates.enumerated() {
            guard let verdict = gate.judge(evidence), !verdict.passed, verdict.subject == other.pharmacyID else { continue }
            summaries[index].failed(other.pharmacyID, forced: force)
            guard !force else { return }
            try evict(other.pharmacyID, at: other.index, candidate: candidate,
                      problem: StockDataChecks.Problem(reason: RejectReason(rawValue: gate.name), message: verdict.message), report: &report)
            digests[lines.value] = held
            return
        }
    }

    /// One offer's item line as the duplicate check hashes it (aptcode, shelf price, quantity), as `SortedOffers` does for a feed.
    static func itemLine(aptcode: String, priceCents: Int64, quantity: Int64?) -> TableDigest.Row {
        var line = TableDigest.Row()
        line.text(aptcode)
        line.int(priceCents)
        line.int(quantity)
        return line
    }

    /// A pharmacy's data in `current`, priced with tonight's list and handed
    /// to `write` in batches, and its carry-over entry in the report; nil
    /// when there is none or it is too old (then the report says it was dropped).
    private func kept(_ pharmacyID: String, report: inout RunReport, write: ([OfferRow]) throws -> Void) throws -> PharmacyRow? {
        guard let previous, let old = previous.pharmacies[pharmacyID] else { return nil }
        let refreshed = ExportTimestamp.parseISO8601(old.lastRefresh)
        var entry = CarryOver(kind: .pharmacy, key: pharmacyID, fromVersion: previous.version, lastRefresh: old.lastRefresh,
                              dropped: false, offers: nil)
        func drop(_ code: WarningCode, _ message: String) throws {
            entry.dropped = true
            report.carriedOver.append(entry)
            try report.warnings.append(Warning(file: "", line: 0, key: pharmacyID, code: code, message: message))
        }
        switch carryOver.verdict(for: old, in: previous.version) {
        case .future(let message):
            try drop(.futureDropped, message)
            return nil
        case .stale(let message):
            try drop(.staleDropped, message)
            return nil
        case .keep: break
        }
        guard let refreshed else { return nil } // a kept row's date parses (the verdict read it)
        let period = pricer.period(on: refreshed.localDate)
        var count = 0
        try previous.forEachOffers(of: pharmacyID, batch: Self.batchRows) { batch in
            var rows = batch
            for index in rows.indices {
                if try !items.contains(rows[index].aptcode), let item = try previous.item(rows[index].aptcode) {
                    try items.add(item)
                }
                if let period { pricer.price(&rows[index], packageCode: try items.packageCode(of: rows[index].aptcode), period: period) }
            }
            count += rows.count
            try write(rows)
        }
        var row = registry[pharmacyID].map { known in
            PharmacyRow(id: known.id, name: known.name, chainID: known.chainID, region: known.region, address: known.address,
                        phone: known.phone, openHours: known.openHours, latitude: known.latitude, longitude: known.longitude,
                        lastRefresh: old.lastRefresh, itemCount: count, stale: true)
        } ?? old
        // An export first loaded by an earlier run of tonight's date is
        // tonight's (a re-run keeps its pharmacies fresh); anything older is
        // stale. A snapshot from before `loaded_at` cannot tell: stale.
        row.stale = old.loadedAt.flatMap { ExportTimestamp.parseISO8601($0) }?.localDate != runDate
        row.itemCount = count
        row.loadedAt = old.loadedAt ?? old.lastRefresh
        entry.offers = count
        report.carriedOver.append(entry)
        return row
    }

    // MARK: Wrong data (issue 22)

    /// The checks against current and across tonight's feeds; the problem that rejects the feed, if any.
    private func judge(_ result: PharmacyFeedParser.Result, header: StockFeedHeader, report: inout RunReport) throws -> StockDataChecks.Problem? {
        let offers = result.offers
        let id = header.pharmacyID
        let file = result.loaded?.file.name ?? ""
        if offers.allQuantitiesZero {
            try report.warnings.append(Warning(file: file, line: 0, key: id, code: .allQuantitiesZero,
                                               message: "every one of pharmacy \(id)'s \(offers.count) offers has quantity 0"))
        }
        var evidence = PharmacyEvidence(pharmacyID: id, items: offers.count)
        if let previous, let old = previous.pharmacies[id] {
            evidence.currentItems = old.itemCount
            // The sample costs point lookups in current: taken when the price check is on.
            if checks.maxPriceRatio > 0 {
                // Tonight's first items in key order against current's from the same key on.
                let sample = offers.head.prefix(checks.priceSample).map { (aptcode: $0.aptcode, cents: $0.priceCents) }
                let current = try sample.first.map { try previous.prices(of: id, from: $0.aptcode, limit: checks.priceSample) } ?? [:]
                evidence.priceRatio = StockDataChecks.medianRatio(tonight: sample, current: current)
            }
        }
        let digest = offers.digest
        let held = result.loaded == nil ? nil : digests[digest]
        if let held {
            // Stock carried from current is never the copy; of two feeds tonight, the newer export is.
            let thisIsNewer = held.candidate == nil || (header.exportedAt.epochSeconds != held.exportedAt
                ? header.exportedAt.epochSeconds > held.exportedAt : precedesInByteOrder(held.file, file))
            evidence.twin = thisIsNewer
                ? PharmacyEvidence.Twin(copy: id, copyFile: file, original: held.pharmacyID, originalFile: held.file,
                                        carriedFrom: held.candidate == nil ? previous?.version ?? "" : nil)
                : PharmacyEvidence.Twin(copy: held.pharmacyID, copyFile: held.file, original: id, originalFile: file)
        }
        var problem: StockDataChecks.Problem?
        for (index, gate) in gates.enumerated() {
            evidence.rejectedByEarlierGate = problem != nil
            guard let verdict = gate.judge(.pharmacy(evidence)) else { continue }
            if verdict.passed {
                if let margin = verdict.margin {
                    summaries[index].passed(id, margin: margin, describe: verdict.measured)
                } else {
                    summaries[index].evaluated += 1
                }
                continue
            }
            let found = StockDataChecks.Problem(reason: RejectReason(rawValue: gate.name), message: verdict.message)
            let subject = verdict.subject ?? id
            summaries[index].failed(subject, forced: force)
            if subject != id, let held, let candidate = held.candidate {
                // An earlier feed tonight was the copy: it gives way to yesterday's data.
                if !force { try evict(subject, at: held.index, candidate: candidate, problem: found, report: &report) }
            } else if force {
                try report.warnings.append(Warning(file: file, line: 0, key: id, code: .checkForced, message: "forced past \(found.reason): \(found.message)"))
            } else {
                problem = problem ?? found
            }
        }
        // Tonight's stock is held for the feeds after it unless it is rejected or a copy (forced or not).
        if problem == nil, let loaded = result.loaded, held == nil || evidence.twin?.original == id {
            digests[digest] = HeldStock(pharmacyID: id, exportedAt: header.exportedAt.epochSeconds, file: file, index: pharmacies.count, candidate: loaded)
        }
        return problem
    }

    /// The loaded feed's line becomes a rejected one: every offer of it a reject with the check's reason.
    private func reject(_ result: PharmacyFeedParser.Result, _ problem: StockDataChecks.Problem, report: inout RunReport) throws {
        let id = result.pharmacyID ?? ""
        let file = markRejected(id, problem, report: &report)
        let prefix = "feed rejected whole (\(problem.reason)): \(problem.message)"
        try result.offers.forEach {
            try report.rejects.append(Reject(file: file, line: $0.line, key: $0.aptcode, reason: problem.reason, message: prefix))
        }
    }

    /// Marks the pharmacy's loaded feed rejected in the report; returns its file name.
    private func markRejected(_ id: String, _ problem: StockDataChecks.Problem, report: inout RunReport) -> String {
        guard let index = report.feeds.lastIndex(where: { $0.pharmacyID == id && $0.outcome == .loaded && $0.kind == FeedKind.stock.rawValue }) else { return "" }
        report.feeds[index].outcome = .rejected
        report.feeds[index].reason = problem.reason.rawValue
        report.feeds[index].message = "\(problem.reason): \(problem.message)"
        report.feeds[index].rejectsByReason[problem.reason, default: 0] += report.feeds[index].accepted
        report.feeds[index].accepted = 0
        return report.feeds[index].file
    }

    /// A pharmacy already written turns out to be the newer copy of another's
    /// stock: its offers give way to yesterday's (or to none), its feed is
    /// rejected, and its records are read again (rare) so each is a reject
    /// with its own line.
    private func evict(_ id: String, at index: Int, candidate: StockFeedPlan.Candidate, problem: StockDataChecks.Problem,
                       report: inout RunReport) throws {
        let file = markRejected(id, problem, report: &report)
        // Its offers as rejects, straight from the adapter to the journal (its own rejects and warnings were counted the first time).
        let prefix = "feed rejected whole (\(problem.reason)): \(problem.message)"
        let log = PharmacyFeedParser.TaskLog(PharmacyFeedParser.Result(pharmacyID: id, spillPrefix: report.rejects.spillPath.map { "\($0).evict-" }))
        var output = FeedOutput<StockOffer>(file: file, sink: FeedSink(
            accept: { log.reject(Reject(file: file, line: $0.line, key: $0.aptcode, reason: problem.reason, message: prefix)) },
            reject: { _ in }, warn: { _ in }))
        if let part = candidate.part { _ = try part.replay(into: &output) } else { _ = candidate.adapter.parse(candidate.file, into: &output) }
        if let failure = log.failure { throw failure }
        try report.rejects += log.rejects
        log.rejects.discard()
        try writer.deleteOffers(pharmacyID: id)
        try history?.discard(id)
        if let kept = try kept(id, report: &report, write: { try writer.insertOffers(pharmacyID: id, $0) }) {
            pharmacies[index] = kept
        } else {
            pharmacies[index].itemCount = -1
        }
    }

    private func pharmacyRow(_ header: StockFeedHeader, offers: Int, report: inout RunReport) throws -> PharmacyRow {
        let refresh = header.exportedAt.iso8601
        if let known = registry[header.pharmacyID] {
            return PharmacyRow(id: known.id, name: known.name, chainID: known.chainID, region: known.region,
                               address: known.address, phone: known.phone, openHours: known.openHours,
                               latitude: known.latitude, longitude: known.longitude,
                               lastRefresh: refresh, itemCount: offers, stale: false, loadedAt: loadedAt)
        }
        try report.warnings.append(Warning(
            file: "", line: 0, key: header.pharmacyID, code: .unknownPharmacy,
            message: "pharmacy \(header.pharmacyID) is not in the registry; loaded with its feed's name and region UNKNOWN"))
        return PharmacyRow(id: header.pharmacyID, name: header.pharmacyName ?? header.pharmacyID, chainID: header.chainID,
                           region: "UNKNOWN", address: nil, phone: nil, openHours: nil, latitude: nil, longitude: nil,
                           lastRefresh: refresh, itemCount: offers, stale: false, loadedAt: loadedAt)
    }
}

extension WarningCode {
    public static let staleDropped = WarningCode(rawValue: "stale_dropped")
    /// `current` held offers dated after the run's time (a clock gone wrong before this rule existed).
    public static let futureDropped = WarningCode(rawValue: "future_dropped")
}

extension WarningCode {
    /// A wrong-data check failed and --force loaded the feed anyway.
    public static let checkForced = WarningCode(rawValue: "check_forced")
}
