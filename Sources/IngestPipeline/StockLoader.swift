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

    private(set) var items: ItemCatalog
    private(set) var pharmacies: [PharmacyRow] = []
    /// Offers written before their item's package code was known, priced at the end.
    private var latePricing = LateTierPricing()

    /// Offers handed to the writer at a time.
    static let batchRows = 8192

    /// Yesterday's data, read and priced for the pharmacies tonight keeps; nil on a first night.
    private let carried: CarriedStock?
    /// The checks' limits (for the price sample's size), and the checks
    /// themselves with what they remember across feeds.
    let checks: StockDataChecks
    private var judge: FeedJudge
    /// Tonight's changes to prices, merged as offers are written; nil on a first night.
    let history: PriceHistoryDelta?

    init(writer: SnapshotWriter, reference: ReferenceData, pricer: TierPricer, previous: PreviousSnapshot?, asOf: ExportTimestamp, maxStaleDays: Int,
         checks: StockDataChecks = StockDataChecks(), gates: GateCatalog? = nil, force: Bool = false) throws {
        self.checks = checks
        judge = FeedJudge(gates: (gates ?? GateCatalog.builtIn(gates: QualityGates(), checks: checks)).gates, force: force,
                          currentVersion: previous?.version ?? "")
        self.writer = writer
        items = ItemCatalog(overflow: try ItemOverflow(writer: writer), yesterday: previous.map { previous in { try previous.item($0) } })
        registry = reference.registry
        enrichment = ItemEnrichment(reference)
        self.pricer = pricer
        self.previous = previous
        history = try previous.map { try PriceHistoryDelta(writer: writer, previous: $0) }
        carried = previous.map { CarriedStock(previous: $0, pricer: pricer, registry: reference.registry, runDate: asOf.localDate, batchRows: Self.batchRows) }
        carryOver = CarryOverPlan(previousIDs: previous.map { Array($0.pharmacies.keys) } ?? [], asOf: asOf, maxStaleDays: maxStaleDays)
        self.loadedAt = asOf.iso8601
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
        if let problem = try check(result, header: header, report: &report) {
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
                latePricing.note(offer.aptcode, before: pharmacies.count)
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
        report.checks = judge.summaries
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
        guard !latePricing.pending.isEmpty else { return }
        try writer.updateTierPrices(try latePricing.updates(
            pharmacies: pharmacies, pricer: pricer, offer: { try writer.offer(pharmacyID: $0, aptcode: $1) },
            packageCode: { try items.packageCode(of: $0) }))
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
        if let eviction = judge.judgeCarried(pharmacyID, items: kept.itemCount, digest: lines.value,
                                             lastRefresh: ExportTimestamp.parseISO8601(kept.lastRefresh)?.epochSeconds ?? 0,
                                             index: pharmacies.count - 1) {
            try evict(eviction, report: &report)
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

    /// A pharmacy's data in `current` (`CarriedStock`), and its carry-over
    /// entry in the report; nil when there is none or it is too old (then
    /// the report says it was dropped).
    private func kept(_ pharmacyID: String, report: inout RunReport, write: ([OfferRow]) throws -> Void) throws -> PharmacyRow? {
        guard let kept = try carried?.keep(pharmacyID, verdict: carryOver, items: &items, write: write) else { return nil }
        report.carriedOver.append(kept.entry)
        if let warning = kept.warning { try report.warnings.append(warning) }
        return kept.row
    }

    // MARK: Wrong data (issue 22)

    /// The checks against current and across tonight's feeds; the problem that rejects the feed, if any.
    private func check(_ result: PharmacyFeedParser.Result, header: StockFeedHeader, report: inout RunReport) throws -> StockDataChecks.Problem? {
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
        let judgement = judge.judge(evidence, digest: offers.digest, file: file, exportedAt: header.exportedAt.epochSeconds,
                                    loaded: result.loaded, index: pharmacies.count)
        try report.warnings += judgement.warnings
        if let eviction = judgement.eviction { try evict(eviction, report: &report) }
        return judgement.problem
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
    private func evict(_ eviction: FeedJudge.Eviction, report: inout RunReport) throws {
        let (id, index, candidate, problem) = (eviction.pharmacyID, eviction.index, eviction.candidate, eviction.problem)
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
