import Foundation
import IngestAdapters
import IngestCore
import IngestSnapshot

/// The writer side of a run: takes parsed pharmacies in id order from the
/// parse threads and writes their offers; pharmacies of the previous
/// snapshot whose feed is missing or rejected tonight are carried over in
/// their place in the key order, stale, until they are too old.
///
/// It orders the stages and holds what lasts across pharmacies (the items,
/// the pharmacies written, the carry-over plan, the judge's memory); each
/// stage in `Loading/` answers with values, and what the report gains comes
/// back from `take` and `finish` as a `LoadReportPart`.
final class StockLoader {
    let writer: SnapshotWriter
    /// Registry details by pharmacy id.
    let registry: [String: PharmacyRecord]
    let pricer: TierPricer
    /// The run's time, stamped on every pharmacy loaded fresh tonight.
    let loadedAt: String
    /// Where the loader's own journals spill (beside the parse's).
    let spillPrefix: String?

    private(set) var items: ItemCatalog
    private(set) var pharmacies: [PharmacyRow] = []
    /// Which previous pharmacies are due when, and whether each may be kept.
    private var carryOver: CarryOverPlan
    /// Offers written before their item's package code was known, priced at the end.
    private var latePricing = LateTierPricing()
    private var judge: FeedJudge

    /// Offers handed to the writer at a time.
    static let batchRows = 8192

    private let fresh: FreshStock
    /// Yesterday's data, read and priced for the pharmacies tonight keeps; nil on a first night.
    private let carried: CarriedStock?
    private let measurement: FeedMeasurement
    private let itemTable: ItemTable

    init(writer: SnapshotWriter, reference: ReferenceData, pricer: TierPricer, previous: PreviousSnapshot?, asOf: ExportTimestamp, maxStaleDays: Int,
         checks: StockDataChecks = StockDataChecks(), gates: GateCatalog? = nil, force: Bool = false, spillPrefix: String? = nil) throws {
        judge = FeedJudge(gates: (gates ?? GateCatalog.builtIn(gates: QualityGates(), checks: checks)).gates, force: force,
                          currentVersion: previous?.version ?? "")
        self.writer = writer
        items = ItemCatalog(overflow: try ItemOverflow(writer: writer), yesterday: previous.map { previous in { try previous.item($0) } })
        registry = reference.registry
        self.pricer = pricer
        self.spillPrefix = spillPrefix
        fresh = FreshStock(pricer: pricer, history: try previous.map { try PriceHistoryDelta(writer: writer, previous: $0) }, batchRows: Self.batchRows)
        carried = previous.map { CarriedStock(previous: $0, pricer: pricer, registry: reference.registry, runDate: asOf.localDate, batchRows: Self.batchRows) }
        measurement = FeedMeasurement(previous: previous, checks: checks)
        itemTable = ItemTable(enrichment: ItemEnrichment(reference), batchRows: Self.batchRows)
        carryOver = CarryOverPlan(previousIDs: previous.map { Array($0.pharmacies.keys) } ?? [], asOf: asOf, maxStaleDays: maxStaleDays)
        self.loadedAt = asOf.iso8601
    }

    /// One pharmacy's parse result, in plan order; what the report gains by it.
    func take(_ result: PharmacyFeedParser.Result) throws -> LoadReportPart {
        defer { result.offers.discard() }
        if let failure = result.failure {
            result.rejects.discard()
            result.warnings.discard()
            throw failure
        }
        var part = LoadReportPart(result)
        do {
            try load(result, into: &part)
        } catch {
            part.discard()
            throw error
        }
        return part
    }

    private func load(_ result: PharmacyFeedParser.Result, into part: inout LoadReportPart) throws {
        guard let pharmacyID = result.pharmacyID else { return }
        try carryPrevious(before: pharmacyID, into: &part)
        carryOver.handled(pharmacyID)
        guard let header = result.header else {
            // Every feed of this pharmacy was rejected tonight: keep yesterday's.
            return try carry(pharmacyID, into: &part)
        }
        let file = result.loaded?.file.name ?? ""
        if let warning = FeedMeasurement.allQuantitiesZero(result.offers, of: pharmacyID, file: file) { try part.warnings.append(warning) }
        let judgement = judge.judge(try measurement.evidence(result.offers, of: pharmacyID), digest: result.offers.digest, file: file,
                                    exportedAt: header.exportedAt.epochSeconds, loaded: result.loaded, index: pharmacies.count)
        try part.warnings += judgement.warnings
        if let eviction = judgement.eviction { try evict(eviction, into: &part) }
        if let problem = judgement.problem {
            part.rejectedFeeds.append(RejectedFeed(pharmacyID: pharmacyID, problem: problem))
            try WholeFeedRejection.rejects(of: result.offers, file: file, problem, into: &part.rejects)
            return try carry(pharmacyID, into: &part)
        }
        let late = try fresh.write(result.offers, of: pharmacyID, exportedAt: header.exportedAt, items: &items,
                                   write: { try writer.writeOffers(pharmacyID: pharmacyID, $0) })
        for aptcode in late { latePricing.note(aptcode, before: pharmacies.count) }
        let (row, warning) = FreshPharmacyRow.row(header, offers: result.offers.count, registry: registry, loadedAt: loadedAt)
        if let warning { try part.warnings.append(warning) }
        pharmacies.append(row)
    }

    /// After the last pharmacy: the remaining carry-overs, late tier prices,
    /// items and pharmacies; what the report gains by them.
    func finish() throws -> LoadReportPart {
        var part = LoadReportPart(spillPrefix: spillPrefix)
        do {
            try carryPrevious(before: nil, into: &part)
            part.checks = judge.summaries
            if !latePricing.pending.isEmpty {
                try writer.updateTierPrices(try latePricing.updates(
                    pharmacies: pharmacies, pricer: pricer, offer: { try writer.offer(pharmacyID: $0, aptcode: $1) },
                    packageCode: { try items.packageCode(of: $0) }))
            }
            try itemTable.write(&items, warnings: &part.warnings, write: { try writer.writeItems($0) })
            // A pharmacy evicted as a duplicate with nothing to carry leaves an empty slot (itemCount -1).
            let written = pharmacies.filter { $0.itemCount >= 0 }
            part.stalePharmacies = written.filter(\.stale).count
            try writer.writePharmacies(written)
        } catch {
            part.discard()
            throw error
        }
        return part
    }

    /// Carries every previous pharmacy that sorts before `pharmacyID` (all, for nil).
    private func carryPrevious(before pharmacyID: String?, into part: inout LoadReportPart) throws {
        for next in carryOver.due(before: pharmacyID) { try carry(next, into: &part) }
    }

    /// Keeps a pharmacy's offers from `current`, stale. Their age is how long
    /// the pharmacy has gone without a valid feed, counted on the run's
    /// clock from the run that last loaded them (`loaded_at`), whatever date
    /// the export itself bore: a feed loaded tonight is fresh tonight and is
    /// carried for `maxStaleDays` after, however old its export date.
    private func carry(_ pharmacyID: String, into part: inout LoadReportPart) throws {
        var lines = TableDigest()
        guard let kept = try keep(pharmacyID, into: &part, write: { rows in
            for row in rows { lines.add(Self.itemLine(aptcode: row.aptcode, priceCents: row.priceCents, quantity: row.quantity)) }
            try writer.writeOffers(pharmacyID: pharmacyID, rows)
        }) else { return }
        pharmacies.append(kept)
        if let eviction = judge.judgeCarried(pharmacyID, items: kept.itemCount, digest: lines.value,
                                             lastRefresh: ExportTimestamp.parseISO8601(kept.lastRefresh)?.epochSeconds ?? 0,
                                             index: pharmacies.count - 1) {
            try evict(eviction, into: &part)
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

    /// A pharmacy's data in `current` (`CarriedStock`) and its carry-over
    /// entry; nil when there is none or it is too old (then the entry says
    /// it was dropped).
    private func keep(_ pharmacyID: String, into part: inout LoadReportPart, write: ([OfferRow]) throws -> Void) throws -> PharmacyRow? {
        guard let kept = try carried?.keep(pharmacyID, verdict: carryOver, items: &items, write: write) else { return nil }
        part.carriedOver.append(kept.entry)
        if let warning = kept.warning { try part.warnings.append(warning) }
        return kept.row
    }

    /// A pharmacy already written turns out to be the newer copy of
    /// another's stock: its feed is rejected (`DuplicateEviction`), and its
    /// offers give way to yesterday's, or to none.
    private func evict(_ eviction: FeedJudge.Eviction, into part: inout LoadReportPart) throws {
        let id = eviction.pharmacyID
        part.rejectedFeeds.append(RejectedFeed(pharmacyID: id, problem: eviction.problem))
        let rejects = try DuplicateEviction.rejects(of: eviction, spillPrefix: spillPrefix.map { "\($0)evict-" })
        defer { rejects.discard() }
        try part.rejects += rejects
        try writer.deleteOffers(pharmacyID: id)
        try fresh.history?.discard(id)
        if let kept = try keep(id, into: &part, write: { try writer.insertOffers(pharmacyID: id, $0) }) {
            pharmacies[eviction.index] = kept
        } else {
            pharmacies[eviction.index].itemCount = -1
        }
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
