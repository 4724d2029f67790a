import Foundation
import IngestCore

/// `q=ip`: the pharmacies selling an item, at what price, by region and
/// distance; in stock only (Version 2), open now, offers no older than
/// `maxAge` (Version 3).
public struct ItemPharmaciesQuery: ReadAPIQuery {
    public static let name = "ip"
    public static let documentation = QueryDocumentation(
        summary: "pharmacies selling an item (aptcode; optional position, onlyNearest, inStock, openNow, at, maxAge)",
        parameters: ["aptcode", "latitude", "longitude", "onlyNearest", "inStock", "limit", "offset", "openNow", "at", "maxAge"],
        answerSchema: "ItemPharmacies")

    public var aptcode: String
    public var near: GeoPoint?
    public var onlyNearest: Bool
    /// Only pharmacies whose quantity is above zero or not reported (Version 2).
    public var inStock: Bool
    public var page: ResultPage
    public var when: ReadQuery.When

    public init(aptcode: String, near: GeoPoint?, onlyNearest: Bool, inStock: Bool = false, page: ResultPage = .first, when: ReadQuery.When = .any) {
        self.aptcode = aptcode
        self.near = near
        self.onlyNearest = onlyNearest
        self.inStock = inStock
        self.page = page
        self.when = when
    }

    public init(_ parameters: QueryParameters) throws(ReadQuery.Invalid) {
        let aptcode = try parameters.requiredCode("aptcode")
        let near = try parameters.position()
        let inStock: Bool
        switch parameters["inStock"] {
        case nil, "0": inStock = false
        case "1": inStock = true
        case let other?: throw ReadQuery.Invalid(reason: "inStock is 0 or 1, not \(ReadQuery.quoted(other))")
        }
        self.init(aptcode: aptcode, near: near, onlyNearest: try parameters.onlyNearest(near: near), inStock: inStock,
                  page: try parameters.page(), when: try parameters.when())
    }

    public var saysWhatIsOpen: Bool { when.at == nil }

    public func answer(from snapshot: OpenSnapshot, context: ReadContext) throws -> Data {
        let offers = try snapshot.itemOffers.value(for: aptcode) {
            try snapshot.withReader { reader in
                ItemOffers(aptcode: aptcode, rows: try reader.offers(of: aptcode, in: snapshot.pharmacies), directory: snapshot.pharmacies,
                           prices: snapshot.prices)
            }
        }
        return answer(with: offers, of: snapshot, context: context)
    }

    /// An item asked for before has its offers kept (`OpenSnapshot.itemOffers`).
    public func answerFromMemory(of snapshot: OpenSnapshot, context: ReadContext) throws -> Data? {
        snapshot.itemOffers.cachedValue(for: aptcode).map { answer(with: $0, of: snapshot, context: context) }
    }

    private func answer(with offers: ItemOffers, of snapshot: OpenSnapshot, context: ReadContext) -> Data {
        ReadAPI.encode(ReadAPI.itemPharmacies(snapshot, offers: offers, near: near, onlyNearest: onlyNearest, inStock: inStock, page: page,
                                              when: when, at: context.moment(when.at)))
    }
}

extension ReadAPI {
    static func itemPharmacies(_ snapshot: OpenSnapshot, offers: ItemOffers, near: GeoPoint?, onlyNearest: Bool,
                               inStock: Bool = false, page: ResultPage = .first, when: ReadQuery.When = .any,
                               at moment: RequestMoment) -> ItemPharmacies {
        let directory = snapshot.pharmacies
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
}
