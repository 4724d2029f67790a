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
    let reference: ReferenceData
    let pricer: TierPricer
    let previous: PreviousSnapshot?
    /// Data last loaded before this is too old to carry over.
    let staleCutoff: Int64
    /// Data exported after this is dated in the future and never carried.
    let latestValidExport: Int64
    let maxStaleDays: Int
    /// The run's time, stamped on every pharmacy loaded fresh tonight.
    let loadedAt: String

    private(set) var items = ItemCatalog()
    private(set) var pharmacies: [PharmacyRow] = []
    /// Items whose package code arrived only with a later pharmacy's feed,
    /// and the index (into `pharmacies`) of that pharmacy: offers of the
    /// pharmacies before it were written without tier prices and are priced
    /// at the end. Memory grows with items, never with offers.
    private var latePriced: [(aptcode: String, before: Int)] = []
    /// Previous pharmacies not yet loaded or carried, in byte order.
    private var pendingPrevious: [String]

    init(writer: SnapshotWriter, reference: ReferenceData, pricer: TierPricer, previous: PreviousSnapshot?, asOf: ExportTimestamp, maxStaleDays: Int) {
        self.writer = writer
        self.reference = reference
        self.pricer = pricer
        self.previous = previous
        self.maxStaleDays = maxStaleDays
        self.staleCutoff = asOf.epochSeconds - Int64(maxStaleDays) * 86_400
        self.latestValidExport = asOf.epochSeconds + PharmacyFeedParser.futureTolerance
        self.loadedAt = asOf.iso8601
        self.pendingPrevious = (previous?.pharmacies.keys.map { $0 } ?? [])
            .sorted { $1.utf8.lexicographicallyPrecedes($0.utf8) } // reversed: popLast takes the smallest
    }

    /// One pharmacy's parse result, in plan order.
    func take(_ result: PharmacyFeedParser.Result, report: inout RunReport) throws {
        report.feeds += result.feeds
        report.rejects += result.rejects
        report.warnings += result.warnings
        guard let pharmacyID = result.pharmacyID else { return }
        try carryPrevious(before: pharmacyID, report: &report)
        guard let header = result.header else {
            // Every feed of this pharmacy was rejected tonight: keep yesterday's.
            if pendingPrevious.last == pharmacyID { pendingPrevious.removeLast() }
            try carry(pharmacyID, report: &report)
            return
        }
        if pendingPrevious.last == pharmacyID { pendingPrevious.removeLast() }
        let period = pricer.period(on: header.exportedAt.localDate)
        let offers = result.offers
        var rows: [OfferRow] = []
        rows.reserveCapacity(offers.count)
        let tracking = !pricer.catalog.isEmpty
        // By index, not `for offer in`: the iterator hands out a copy of each
        // offer, a retain and a release of its seven strings, and this loop
        // runs five million times on the writer thread.
        for index in offers.indices {
            let known = items.add(offers[index])
            if tracking, known.existed, known.packageCode == nil, offers[index].packageCode != nil {
                latePriced.append((offers[index].aptcode, pharmacies.count))
            }
            var row = OfferRow(aptcode: offers[index].aptcode, priceCents: offers[index].priceCents, quantity: offers[index].quantity)
            if let period { pricer.price(&row, packageCode: offers[index].packageCode ?? known.packageCode, period: period) }
            rows.append(row)
        }
        try writer.writeOffers(pharmacyID: pharmacyID, rows)
        pharmacies.append(pharmacyRow(header, offers: result.offers.count, report: &report))
    }

    /// After the last pharmacy: the remaining carry-overs, late tier prices,
    /// items and pharmacies.
    func finish(report: inout RunReport) throws {
        try carryPrevious(before: nil, report: &report)
        try priceLateOffers()
        try writer.writeItems(items.sortedRows().map { item in
            var item = item
            reference.enrich(&item, warnings: &report.warnings)
            return item
        })
        try writer.writePharmacies(pharmacies)
    }

    /// Offers written before their item's package code was known.
    private func priceLateOffers() throws {
        guard !latePriced.isEmpty else { return }
        var updates: [(pharmacyID: String, row: OfferRow)] = []
        for (aptcode, before) in latePriced {
            for pharmacy in pharmacies[..<before] {
                guard var row = try writer.offer(pharmacyID: pharmacy.id, aptcode: aptcode), row.limitPriceCents == nil,
                      let date = ExportTimestamp.parseISO8601(pharmacy.lastRefresh)?.localDate else { continue }
                if pricer.price(&row, packageCode: items.packageCode(of: aptcode), exportDate: date) { updates.append((pharmacy.id, row)) }
            }
        }
        updates.sort { ($0.pharmacyID.utf8.lexicographicallyPrecedes($1.pharmacyID.utf8)) || ($0.pharmacyID == $1.pharmacyID && $0.row.aptcode.utf8.lexicographicallyPrecedes($1.row.aptcode.utf8)) }
        try writer.updateTierPrices(updates)
    }

    /// Carries every previous pharmacy that sorts before `pharmacyID` (all, for nil).
    private func carryPrevious(before pharmacyID: String?, report: inout RunReport) throws {
        while let next = pendingPrevious.last, pharmacyID.map({ next.utf8.lexicographicallyPrecedes($0.utf8) }) ?? true {
            pendingPrevious.removeLast()
            try carry(next, report: &report)
        }
    }

    /// Keeps a pharmacy's offers from `current`, stale. Their age is how long
    /// the pharmacy has gone without a valid feed, counted on the run's
    /// clock from the run that last loaded them (`loaded_at`), whatever date
    /// the export itself bore: a feed loaded tonight is fresh tonight and is
    /// carried for `maxStaleDays` after, however old its export date.
    private func carry(_ pharmacyID: String, report: inout RunReport) throws {
        guard let previous, let old = previous.pharmacies[pharmacyID] else { return }
        let refreshed = ExportTimestamp.parseISO8601(old.lastRefresh)
        let loaded = ExportTimestamp.parseISO8601(old.loadedAt ?? old.lastRefresh)
        var entry = CarryOver(kind: .pharmacy, key: pharmacyID, fromVersion: previous.version, lastRefresh: old.lastRefresh,
                              dropped: false, offers: nil)
        func drop(_ code: WarningCode, _ message: String) {
            entry.dropped = true
            report.carriedOver.append(entry)
            report.warnings.append(Warning(file: "", line: 0, key: pharmacyID, code: code, message: message))
        }
        guard let refreshed, refreshed.epochSeconds <= latestValidExport else {
            drop(.futureDropped, "pharmacy \(pharmacyID)'s offers in \(previous.version) are dated \(old.lastRefresh), after the run's time; they are dropped, never carried")
            return
        }
        guard let loaded, loaded.epochSeconds >= staleCutoff else {
            drop(.staleDropped, "pharmacy \(pharmacyID) sent no valid feed since the run of \(old.loadedAt ?? old.lastRefresh), over \(maxStaleDays) days; its offers are dropped")
            return
        }
        var rows = try previous.offers(of: pharmacyID)
        let period = pricer.period(on: refreshed.localDate)
        for index in rows.indices {
            if !items.contains(rows[index].aptcode), let item = try previous.item(rows[index].aptcode) {
                items.add(item)
            }
            if let period { pricer.price(&rows[index], packageCode: items.packageCode(of: rows[index].aptcode), period: period) }
        }
        try writer.writeOffers(pharmacyID: pharmacyID, rows)
        var row = reference.registry[pharmacyID].map { known in
            PharmacyRow(id: known.id, name: known.name, chainID: known.chainID, region: known.region, address: known.address,
                        phone: known.phone, openHours: known.openHours, latitude: known.latitude, longitude: known.longitude,
                        lastRefresh: old.lastRefresh, itemCount: rows.count, stale: true)
        } ?? old
        row.stale = true
        row.itemCount = rows.count
        row.loadedAt = old.loadedAt ?? old.lastRefresh
        pharmacies.append(row)
        entry.offers = rows.count
        report.carriedOver.append(entry)
    }

    private func pharmacyRow(_ header: StockFeedHeader, offers: Int, report: inout RunReport) -> PharmacyRow {
        let refresh = header.exportedAt.iso8601
        if let known = reference.registry[header.pharmacyID] {
            return PharmacyRow(id: known.id, name: known.name, chainID: known.chainID, region: known.region,
                               address: known.address, phone: known.phone, openHours: known.openHours,
                               latitude: known.latitude, longitude: known.longitude,
                               lastRefresh: refresh, itemCount: offers, stale: false, loadedAt: loadedAt)
        }
        report.warnings.append(Warning(
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
