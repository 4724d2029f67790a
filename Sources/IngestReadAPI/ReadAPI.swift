import Foundation

/// The five queries of READ_API.md answered from one open snapshot, as the
/// JSON bodies the apps read. Sorting, grouping and formatting happen here;
/// the SQL is in `SnapshotReader`.
public enum ReadAPI {
    /// At most this many items for a search (READ_API.md), and pharmacies for `onlyNearest`.
    static let searchLimit = 50
    static let nearestLimit = 10
    static let nearestGroup = "Nearest"

    /// The JSON body for `query`. `.changes` is not answered here (`ChangesetCache`).
    public static func answer(_ query: ReadQuery, from snapshot: OpenSnapshot) throws -> Data {
        switch query {
        case .pharmacies(let near, let onlyNearest):
            return encode(pharmacyList(snapshot, near: near, onlyNearest: onlyNearest))
        case .itemSearch(let text):
            guard let match = ItemSearchExpression.match(text) else { return encode(ItemSearch(items: [])) }
            let items = try snapshot.withReader { try $0.search(match, limit: searchLimit) }
            return encode(ItemSearch(items: items.map { .init(a: $0.aptcode, n: $0.name, p: $0.producer) }))
        case .itemPharmacies(let aptcode, let near, let onlyNearest):
            return encode(try itemPharmacies(snapshot, aptcode: aptcode, near: near, onlyNearest: onlyNearest))
        case .itemDetails(let aptcode, let pharmacyID):
            return encode(ItemDetails(item_details: try itemDetails(snapshot, aptcode: aptcode, pharmacyID: pharmacyID).map { [$0] } ?? []))
        case .atc(let parent):
            let groups = try snapshot.withReader { try $0.atcChildren(of: parent) }
            return encode(ATCTree(atc: groups.map { .init(a: $0.code, n: $0.name, c: "\($0.items)") }))
        case .changes:
            preconditionFailure("changesets are served by ChangesetCache")
        }
    }

    public static func error(_ reason: String) -> Data { encode(ErrorBody(error: reason)) }

    static func encode(_ value: some JSONWritable) -> Data { Data(value.json) }

    // MARK: - The queries

    /// One entry to place: a pharmacy (with what the row shows of it) and its distance from the client.
    private struct Placed<Row> {
        var pharmacy: PharmacyEntry
        var metres: Double?
        var row: Row
    }

    /// Regions in name order, pharmacies by distance when a position is
    /// given, else by name; or, for `onlyNearest`, the nearest few in one
    /// group. A pharmacy without coordinates is never among the nearest
    /// and comes after those with a distance.
    private static func grouped<Row>(_ entries: [Placed<Row>], onlyNearest: Bool) -> [(name: String, rows: [Row])] {
        let ordered = entries.sorted { left, right in
            switch (left.metres, right.metres) {
            case let (l?, r?) where l != r: return l < r
            case (_?, nil): return true
            case (nil, _?): return false
            default: return (left.pharmacy.name, left.pharmacy.id) < (right.pharmacy.name, right.pharmacy.id)
            }
        }
        if onlyNearest {
            let nearest = ordered.filter { $0.metres != nil }.prefix(nearestLimit).map(\.row)
            return nearest.isEmpty ? [] : [(nearestGroup, Array(nearest))]
        }
        var regions: [String: [Row]] = [:]
        for entry in ordered { regions[entry.pharmacy.region, default: []].append(entry.row) }
        return regions.keys.sorted().map { ($0, regions[$0]!) }
    }

    private static func distance(_ pharmacy: PharmacyEntry, from near: GeoPoint?) -> Double? {
        guard let near, let position = pharmacy.position else { return nil }
        return near.metres(to: position)
    }

    private static func shown(_ metres: Double?, near: GeoPoint?) -> String? {
        guard near != nil else { return nil }
        return metres.map { ReadAPIFormat.distance(metres: $0) } ?? ""
    }

    static func pharmacyList(_ snapshot: OpenSnapshot, near: GeoPoint?, onlyNearest: Bool) -> PharmacyList {
        let placed = snapshot.pharmacies.map { pharmacy in
            let metres = distance(pharmacy, from: near)
            return Placed(pharmacy: pharmacy, metres: metres, row: PharmacyList.Pharmacy(
                i: pharmacy.id, n: pharmacy.name, d: pharmacy.day, p: pharmacy.phone, a: pharmacy.address,
                c: pharmacy.chainID, o: pharmacy.openHours, l: pharmacy.shownPosition, di: shown(metres, near: near)))
        }
        return PharmacyList(regions: grouped(placed, onlyNearest: onlyNearest).map { .init(n: $0.name, p: $0.rows) })
    }

    static func itemPharmacies(_ snapshot: OpenSnapshot, aptcode: String, near: GeoPoint?, onlyNearest: Bool) throws -> ItemPharmacies {
        let offers = try snapshot.withReader { try $0.offers(of: aptcode) }
        let placed = offers.compactMap { offer -> Placed<ItemPharmacies.Offer>? in
            guard let pharmacy = snapshot.pharmacyByID[offer.pharmacyID] else { return nil }
            let metres = distance(pharmacy, from: near)
            return Placed(pharmacy: pharmacy, metres: metres, row: ItemPharmacies.Offer(
                i: aptcode, pi: pharmacy.id, n: pharmacy.name, p: ReadAPIFormat.price(offer.priceCents), di: shown(metres, near: near)))
        }
        return ItemPharmacies(item_pharmacies: grouped(placed, onlyNearest: onlyNearest).map { .init(n: $0.name, p: $0.rows) })
    }

    /// nil for an unknown item or pharmacy. A known pharmacy that does not
    /// stock the item gets the item's details with empty prices.
    static func itemDetails(_ snapshot: OpenSnapshot, aptcode: String, pharmacyID: String) throws -> ItemDetails.Details? {
        guard let pharmacy = snapshot.pharmacyByID[pharmacyID] else { return nil }
        return try snapshot.withReader { reader -> ItemDetails.Details? in
            guard let item = try reader.item(aptcode) else { return nil }
            let offer = try reader.offer(pharmacyID: pharmacyID, aptcode: aptcode)
            let tiers = try item.packageCode.map { try reader.tiers(packageCode: $0) } ?? [:]
            let infos = [50, 75, 100].map { tiers[Int64($0)]?.info ?? "" }
            return ItemDetails.Details(
                itemId: aptcode, itemName: item.name, producerName: item.producer, pharmacyName: pharmacy.name,
                price: ReadAPIFormat.price(offer?.priceCents), priceLimit: ReadAPIFormat.price(offer?.limitCents),
                priceDisc50: ReadAPIFormat.price(offer?.tier50), priceDisc75: ReadAPIFormat.price(offer?.tier75),
                priceDisc90: ReadAPIFormat.price(offer?.tier90), priceDisc100: ReadAPIFormat.price(offer?.tier100),
                diagnose50: tiers[50]?.diagnoses ?? "", diagnose75: tiers[75]?.diagnoses ?? "", diagnose100: tiers[100]?.diagnoses ?? "",
                info50: infos[0], info75: infos[1], info100: infos[2],
                atc: item.atc ?? "", actSubst: item.activeSubstance ?? "",
                diagExpl: LegendReferences.explained(in: infos, legend: snapshot.legend).map { .init(name: $0.code, text: $0.text) },
                infoUrl: item.infoURL ?? "", imageUrl: item.imageURL ?? "")
        }
    }
}
