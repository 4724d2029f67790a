import Foundation
import IngestSnapshot

/// The five queries of READ_API.md answered from one open snapshot, as the
/// JSON bodies the apps read. Sorting, grouping and formatting happen here;
/// the SQL is in `SnapshotReader`.
public enum ReadAPI {
    /// This many items for a search without a `limit` (READ_API.md), and pharmacies for `onlyNearest`.
    static let searchLimit = 50
    static let nearestLimit = 10
    /// `onlyNearest=1&limit=N` answers at most this many (READ_API.md, Version 2).
    static let nearestMaximum = 50
    static let nearestGroup = "Nearest"

    /// The JSON body for `query`. `.changes` is not answered here (`ChangesetCache`).
    /// `context`: the clock and the service's time zone, for `on`, `oh`, `openNow` and `maxAge` (Version 3).
    public static func answer(_ query: ReadQuery, from snapshot: OpenSnapshot, context: ReadContext = ReadContext()) throws -> Data {
        switch query {
        case .pharmacies(let near, let onlyNearest, let page, let when):
            return encode(pharmacyList(snapshot, near: near, onlyNearest: onlyNearest, page: page, when: when, at: context.moment(when.at)))
        case .itemSearch(let text, let atc, let prescription, let page):
            let found = try cachedSearch(text, atc: atc, prescription: prescription, page: page, in: snapshot)
            return encode(ItemSearch(items: found.items.map { .init(a: $0.aptcode, n: $0.name, p: $0.producer, rx: $0.prescription) },
                                     paging: found.paging))
        case .itemPharmacies(let aptcode, let near, let onlyNearest, let inStock, let page, let when):
            return encode(try itemPharmacies(snapshot, aptcode: aptcode, near: near, onlyNearest: onlyNearest, inStock: inStock, page: page,
                                             when: when, at: context.moment(when.at)))
        case .equivalents(let aptcode, let near, let tier, let limit, let when, let radiusKm, let anyPack):
            return encode(try EquivalentsFinder(snapshot: snapshot).equivalents(of: aptcode, near: near, tier: tier, limit: limit,
                                                                                 when: when, at: context.moment(when.at),
                                                                                 radiusKm: radiusKm, anyPack: anyPack))
        case .itemDetails(let aptcode, let pharmacyID):
            return encode(ItemDetails(item_details: try itemDetails(snapshot, aptcode: aptcode, pharmacyID: pharmacyID).map { [$0] } ?? []))
        case .atc(let parent):
            let groups = try snapshot.withReader { try $0.atcChildren(of: parent) }
            return encode(ATCTree(atc: groups.map { .init(a: $0.code, n: $0.name, c: "\($0.items)", cc: "\($0.children)") }))
        case .priceHistory(let aptcode, let pharmacyID):
            let changes = try snapshot.withReader { try $0.priceHistory(pharmacyID: pharmacyID, aptcode: aptcode) }
            return encode(PriceHistoryAnswer(price_history: changes.map { .init(d: ReadAPIFormat.day($0.since), p: snapshot.prices.string($0.cents)) }))
        case .datasheet(let gtin):
            return encode(DatasheetAnswer(gs1: try snapshot.withReader { try $0.datasheet(gtin: gtin) }.map { [$0] } ?? []))
        case .diagnosis(let icd, let page):
            return encode(try diagnosis(icd, page: page, in: snapshot))
        case .changes:
            preconditionFailure("changesets are served by ChangesetCache")
        }
    }

    public static func error(_ reason: String) -> Data { encode(ErrorBody(error: reason)) }

    /// `?q=i`: the items a code names exactly (aptcode, package code, GTIN
    /// and the items below a case GTIN, GS1 element string, Digital Link)
    /// first, then those whose words match (`SnapshotReader.search`'s
    /// order), within the ATC prefix and the `rx` choice: the first `end` of
    /// them, and how many match in all. Words that match nothing find
    /// nothing; no words, with an ATC prefix, list its items.
    ///
    /// The first `end` rows of the word search hold every row of the merged
    /// list up to `end`, and the exact matches (a handful at most) are
    /// counted in the total unless the words find them too.
    static func search(_ text: String, atc: String?, prescription: Bool? = nil, end: Int, in reader: SnapshotReader,
                       vocabulary: SearchVocabulary) throws -> (items: [SnapshotReader.Item], total: Int) {
        let exact = try ScannedCode(text).map { code in
            try reader.items(named: code, prescription: prescription).filter { atc == nil || ($0.atc ?? "").hasPrefix(atc!) }.map(\.item)
        } ?? []
        let plan = searchPlan(ItemSearchText(text), reader: reader, vocabulary: vocabulary)
        let listed = plan != nil || (atc != nil && text.allSatisfy(\.isWhitespace))
        var items = exact
        var total = 0
        if listed {
            items += try reader.search(plan, atcPrefix: atc, prescription: prescription, limit: end > Int.max - exact.count ? Int.max : end + exact.count)
            total = try reader.searchCount(plan, atcPrefix: atc, prescription: prescription)
        }
        var seen = Set<String>()
        let merged = items.filter { seen.insert($0.aptcode).inserted }
        for item in Set(exact.map(\.aptcode)) {
            if try !listed || !reader.matches(aptcode: item, plan, atcPrefix: atc, prescription: prescription) { total += 1 }
        }
        return (Array(merged.prefix(end)), total)
    }

    /// `search`, its ranking kept per snapshot (`OpenSnapshot.searches`) up to
    /// the page's end: a later page or a larger `limit` ranks again.
    static func cachedSearch(_ text: String, atc: String?, prescription: Bool?, page: ResultPage,
                             in snapshot: OpenSnapshot) throws -> (items: [SnapshotReader.Item], paging: Paging) {
        let limit = min(page.limit ?? searchLimit, ResultPage.maximum)
        let end = page.offset > Int.max - limit ? Int.max : page.offset + limit
        let key = ItemSearchKey(text: text, atc: atc, prescription: prescription, end: end)
        let ranked = try snapshot.searches.value(for: key) {
            try snapshot.withReader { reader in
                let found = try search(text, atc: atc, prescription: prescription, end: end, in: reader, vocabulary: snapshot.vocabulary)
                return RankedSearch(items: found.items, total: found.total)
            }
        }
        let range = page.range(total: ranked.total, defaultLimit: searchLimit)
        let shown = range.isEmpty ? [] : Array(ranked.items[min(range.lowerBound, ranked.items.count)..<min(range.upperBound, ranked.items.count)])
        return (shown, Paging(total: ranked.total, shown: range))
    }

    /// The FTS5 queries for `text` (nil when it has no words). A word of 4
    /// letters or more that starts no word of the catalogue is matched by
    /// its one-typo corrections; a file without the folded index (or its
    /// vocabulary) matches the words as typed.
    static func searchPlan(_ text: ItemSearchText, reader: SnapshotReader, vocabulary: SearchVocabulary) -> SnapshotReader.SearchPlan? {
        var corrections: [String: [String]] = [:]
        if !vocabulary.isEmpty {
            for word in text.correctableWords where corrections[word] == nil && !vocabulary.hasWord(startingWith: word) {
                let corrected = vocabulary.corrections(of: word)
                // No correction either: the word as typed, which finds nothing, as it should.
                if !corrected.isEmpty { corrections[word] = corrected }
            }
        }
        guard let matching = text.expression(.all, corrections: corrections), let exact = text.expression(.all),
              let inName = text.expression(.name, corrections: corrections),
              let startsName = text.expression(.name, corrections: corrections, anchored: true) else { return nil }
        return SnapshotReader.SearchPlan(matching: matching, exact: exact, inName: inName, startsName: startsName)
    }

    /// `?q=dx` (Version 3): the code and its ICD-10 name, and the items
    /// reimbursed for it with the tiers the list gives them (the 75 % tier
    /// brings the derived 90 %), by name, one page of them.
    static func diagnosis(_ icd: String, page: ResultPage, in snapshot: OpenSnapshot) throws -> DiagnosisItems {
        try snapshot.withReader { reader in
            let found = try reader.itemsReimbursed(for: icd)
            let range = page.range(total: found.count, defaultLimit: searchLimit)
            let shown = found[min(range.lowerBound, found.count)..<min(range.upperBound, found.count)].map { entry in
                DiagnosisItems.Item(a: entry.item.aptcode, n: entry.item.name, p: entry.item.producer,
                                    t: entry.rates.flatMap { $0 == 75 ? [75, 90] : [$0] }.map(String.init))
            }
            return DiagnosisItems(c: icd, n: try reader.icdName(icd), items: shown, paging: Paging(total: found.count, shown: range))
        }
    }

    /// `GET /health` (READ_API.md, Version 2): which snapshot is served.
    public static func health(_ snapshot: OpenSnapshot) -> Data {
        encode(Health(version: snapshot.version, schema: snapshot.schema, published: snapshot.createdAt))
    }

    static func encode(_ value: some JSONWritable) -> Data { Data(value.json) }

    // MARK: - The queries

    /// One row to place: its pharmacy's sort key and where the row is.
    /// Plain numbers, so the sort moves a few words per row.
    private struct Placement {
        /// Metres from the client; infinity when unknown, so those come last.
        var metres: Double
        var nameRank: Int
        var regionRank: Int
        var row: Int
    }

    /// `rows` by distance (unknown last), then name. Each row's key is one
    /// integer, millimetres above the name rank, sorted as integers: the
    /// comparator over whole entries was 6 % of `q=p`'s CPU. Rows name each
    /// pharmacy once (an answer lists a pharmacy once), so the rank finds
    /// the row again; should one repeat, the entries are compared instead.
    private static func placed(_ rows: [(pharmacy: PharmacyDirectory.Index, metres: Double?)], in directory: PharmacyDirectory) -> [Placement] {
        let placements = rows.indices.map { index in
            Placement(metres: rows[index].metres ?? .infinity, nameRank: directory.nameRanks[rows[index].pharmacy],
                      regionRank: directory.regionRanks[rows[index].pharmacy], row: index)
        }
        var byRank = [Int](repeating: -1, count: directory.count)
        let rankBits: UInt64 = 24
        let unknown: UInt64 = 1 << 38 // past any distance on Earth in millimetres (2 × 10^10 < 2^35)
        var keys: [UInt64] = []
        keys.reserveCapacity(placements.count)
        for placement in placements {
            guard byRank[placement.nameRank] < 0, placement.nameRank < 1 << rankBits else {
                return placements.sorted { $0.metres != $1.metres ? $0.metres < $1.metres : $0.nameRank < $1.nameRank }
            }
            byRank[placement.nameRank] = placement.row
            let millimetres = placement.metres.isFinite ? min(UInt64((placement.metres * 1000).rounded()), unknown - 1) : unknown
            keys.append(millimetres << rankBits | UInt64(placement.nameRank))
        }
        keys.sort()
        return keys.map { placements[byRank[Int($0 & (1 << rankBits - 1))]] }
    }

    /// Regions in name order, pharmacies by distance when a position is
    /// given, else by name; or, for `onlyNearest`, the nearest in one group.
    /// A pharmacy without coordinates is never among the nearest and comes
    /// after those with a distance. The page is cut from that order across
    /// groups (READ_API.md, Version 2), and its groups formed from its own
    /// rows. Gives indices into `rows`.
    private static func grouped(_ rows: [(pharmacy: PharmacyDirectory.Index, metres: Double?)], in directory: PharmacyDirectory,
                                onlyNearest: Bool, page: ResultPage) -> (groups: [(name: String, rows: [Int])], paging: Paging) {
        let ordered = placed(rows, in: directory)
        if onlyNearest {
            let nearest = ordered.prefix { $0.metres.isFinite }
            let range = page.range(total: nearest.count, defaultLimit: nearestLimit, maximum: nearestMaximum)
            let shown = nearest.dropFirst(range.lowerBound).prefix(range.count).map(\.row)
            return (shown.isEmpty ? [] : [(nearestGroup, Array(shown))], Paging(total: nearest.count, shown: range))
        }
        // Stable by region: within a region the distance (or name) order stays.
        var members = [[Int]](repeating: [], count: directory.regions.count)
        for placement in ordered { members[placement.regionRank].append(placement.row) }
        let range = page.range(total: rows.count, defaultLimit: nil)
        var groups: [(name: String, rows: [Int])] = []
        var position = 0
        for (region, rows) in zip(directory.regions, members) where !rows.isEmpty {
            let kept = rows.indices.filter { range.contains(position + $0) }.map { rows[$0] }
            position += rows.count
            if !kept.isEmpty { groups.append((region, kept)) }
        }
        return (groups, Paging(total: rows.count, shown: range))
    }

    static func pharmacyList(_ snapshot: OpenSnapshot, near: GeoPoint?, onlyNearest: Bool, page: ResultPage = .first,
                             when: ReadQuery.When = .any, at moment: RequestMoment) -> PharmacyList {
        let directory = snapshot.pharmacies
        let from = near.map(MeasuredPoint.init)
        let filtering = when.openNow
        let openNow = directory.openStateRow(at: moment)
        let rows = (0..<directory.count).filter { !filtering || directory.admits($0, when, at: moment, in: openNow, offers: false) }
            .map { (pharmacy: $0, metres: directory.metres(from: from, to: $0)) }
        let (groups, paging) = grouped(rows, in: directory, onlyNearest: onlyNearest, page: page)
        return PharmacyList(directory: directory, showsDistance: near != nil, moment: moment, regions: groups.map { group in
            .init(n: group.name, p: group.rows.map { rows[$0] })
        }, paging: paging)
    }

    static func itemPharmacies(_ snapshot: OpenSnapshot, aptcode: String, near: GeoPoint?, onlyNearest: Bool,
                               inStock: Bool = false, page: ResultPage = .first, when: ReadQuery.When = .any,
                               at moment: RequestMoment) throws -> ItemPharmacies {
        let directory = snapshot.pharmacies
        let offers = try snapshot.itemOffers.value(for: aptcode) {
            try snapshot.withReader { reader in
                ItemOffers(aptcode: aptcode, rows: try reader.offers(of: aptcode), directory: directory, prices: snapshot.prices)
            }
        }
        let from = near.map(MeasuredPoint.init)
        let filtering = when.openNow || when.maxAgeDays != nil
        let openNow = directory.openStateRow(at: moment)
        var rows: [ItemPharmacies.Offer] = []
        rows.reserveCapacity(offers.count)
        for index in 0..<offers.count {
            // "Currently selling": a quantity above zero, or a price list that reports none.
            if inStock, let quantity = offers.quantities[index], quantity <= 0 { continue }
            if filtering, !directory.admits(offers.pharmacies[index], when, at: moment, in: openNow, offers: true) { continue }
            rows.append(.init(offer: index, metres: directory.metres(from: from, to: offers.pharmacies[index])))
        }
        let (groups, paging) = grouped(rows.map { (offers.pharmacies[$0.offer], $0.metres) }, in: directory, onlyNearest: onlyNearest, page: page)
        return ItemPharmacies(offers: offers, directory: directory, moment: moment, showsDistance: near != nil,
                              item_pharmacies: groups.map { group in .init(n: group.name, p: group.rows.map { rows[$0] }) }, paging: paging)
    }

    /// nil for an unknown item or pharmacy. A known pharmacy that does not
    /// stock the item gets the item's details with empty prices.
    static func itemDetails(_ snapshot: OpenSnapshot, aptcode: String, pharmacyID: String) throws -> ItemDetails.Details? {
        guard let pharmacy = snapshot.pharmacies.indexByID[pharmacyID] else { return nil }
        let pharmacyName = snapshot.pharmacies.names[pharmacy]
        return try snapshot.withReader { reader -> ItemDetails.Details? in
            guard let item = try reader.item(aptcode) else { return nil }
            let offer = try reader.offer(pharmacyID: pharmacyID, aptcode: aptcode)
            let tiers = try item.packageCode.map { try reader.tiers(packageCode: $0) } ?? [:]
            let infos = [50, 75, 100].map { tiers[Int64($0)]?.info ?? "" }
            let register = try item.packageCode.flatMap { try reader.register(packageCode: $0) }
            var details = ItemDetails.Details(
                itemId: aptcode, itemName: item.name, producerName: item.producer, pharmacyName: pharmacyName,
                price: snapshot.prices.string(offer?.priceCents), priceLimit: snapshot.prices.string(offer?.limitCents),
                priceDisc50: snapshot.prices.string(offer?.tier50), priceDisc75: snapshot.prices.string(offer?.tier75),
                priceDisc90: snapshot.prices.string(offer?.tier90), priceDisc100: snapshot.prices.string(offer?.tier100),
                diagnose50: tiers[50]?.diagnoses ?? "", diagnose75: tiers[75]?.diagnoses ?? "", diagnose100: tiers[100]?.diagnoses ?? "",
                info50: infos[0], info75: infos[1], info100: infos[2],
                atc: item.atc ?? "", actSubst: item.activeSubstance ?? "",
                diagExpl: LegendReferences.explained(in: infos, legend: snapshot.legend).map { .init(name: $0.code, text: $0.text) },
                infoUrl: item.infoURL ?? "", imageUrl: item.imageURL ?? "")
            details.diagnoses = try item.packageCode.map { code in
                try reader.listedDiagnoses(packageCode: code).map { range in
                    range.from == range.to
                        ? ItemDetails.Diagnosis(code: range.from, name: try reader.icdName(range.from))
                        : ItemDetails.Diagnosis(code: range.from + "-" + range.to,
                                                name: [try reader.icdName(range.from), try reader.icdName(range.to)].filter { !$0.isEmpty }.joined(separator: " … "))
                }
            } ?? []
            if let register {
                (details.form, details.strength, details.packSize, details.rx, details.spcUrl)
                    = (register.form, register.strength, register.packSize, register.rx, register.spcURL)
            }
            return details
        }
    }
}
