import Foundation
import IngestCore

/// `q=eq` (Version 2): items the register calls the same medicine, where
/// they are sold, cheapest first at `tier` (else by the shelf price).
/// Version 3: `radius` limits the search around the position; `packs=any`
/// also offers other pack sizes, ranked per unit.
public struct EquivalentsQuery: ReadAPIQuery {
    public static let name = "eq"
    public static let documentation = QueryDocumentation(
        summary: "cheapest equivalents of an item (aptcode; optional position, tier, radius, packs, openNow, at, maxAge)",
        parameters: ["aptcode", "latitude", "longitude", "tier", "limit", "radius", "packs", "openNow", "at", "maxAge"], answerSchema: "Equivalents")

    /// Answers this many without a `limit` (READ_API.md).
    static let defaultLimit = 20

    public var aptcode: String
    public var near: GeoPoint?
    public var tier: Int?
    public var limit: Int
    public var when: ReadQuery.When
    public var radiusKm: Double?
    public var anyPack: Bool

    public init(aptcode: String, near: GeoPoint?, tier: Int?, limit: Int, when: ReadQuery.When = .any, radiusKm: Double? = nil, anyPack: Bool = false) {
        self.aptcode = aptcode
        self.near = near
        self.tier = tier
        self.limit = limit
        self.when = when
        self.radiusKm = radiusKm
        self.anyPack = anyPack
    }

    public init(_ parameters: QueryParameters) throws(ReadQuery.Invalid) {
        let aptcode = try parameters.requiredCode("aptcode")
        let tier: Int?
        switch parameters["tier"] {
        case nil: tier = nil
        case let rate? where ["50", "75", "90", "100"].contains(rate): tier = Int(rate)
        case let other?: throw ReadQuery.Invalid(reason: "tier is 50, 75, 90 or 100, not \(ReadQuery.quoted(other))")
        }
        let page = try parameters.page()
        let near = try parameters.position()
        var radius: Double?
        if let text = parameters["radius"] {
            guard let km = QueryParameters.degrees(text), km > 0, km <= 20_000 else {
                throw ReadQuery.Invalid(reason: "radius is a number of kilometres above 0, not \(ReadQuery.quoted(text))")
            }
            guard near != nil else { throw ReadQuery.Invalid(reason: "radius needs latitude and longitude") }
            radius = km
        }
        let anyPack: Bool
        switch parameters["packs"] {
        case nil, "same": anyPack = false
        case "any": anyPack = true
        case let other?: throw ReadQuery.Invalid(reason: "packs is any or same, not \(ReadQuery.quoted(other))")
        }
        self.init(aptcode: aptcode, near: near, tier: tier, limit: min(page.limit ?? Self.defaultLimit, ResultPage.maximum),
                  when: try parameters.when(), radiusKm: radius, anyPack: anyPack)
    }

    public var saysWhatIsOpen: Bool { when.at == nil }

    /// An item whose group and the group's offers are kept (`OpenSnapshot.equivalents`).
    public func answerFromMemory(of snapshot: OpenSnapshot, context: ReadContext) throws -> Data? {
        EquivalentsFinder(snapshot: snapshot).keptEquivalents(of: aptcode, near: near, tier: tier, limit: limit, when: when, at: context.moment(when.at),
                                                              radiusKm: radiusKm, anyPack: anyPack).map(ReadAPI.encode)
    }

    public func answer(from snapshot: OpenSnapshot, context: ReadContext) throws -> Data {
        ReadAPI.encode(try EquivalentsFinder(snapshot: snapshot).equivalents(of: aptcode, near: near, tier: tier, limit: limit,
                                                                             when: when, at: context.moment(when.at),
                                                                             radiusKm: radiusKm, anyPack: anyPack))
    }
}
