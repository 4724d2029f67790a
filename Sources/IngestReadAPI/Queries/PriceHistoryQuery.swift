import Foundation

/// `q=h` (Version 2): one offer's shelf prices over time, newest first.
public struct PriceHistoryQuery: OfferQuery {
    public static let name = "h"
    public static let documentation = QueryDocumentation(
        summary: "price history of an item at a pharmacy (aptcode, client_id)", parameters: ["aptcode", "client_id"], answerSchema: "PriceHistory")

    public var offer: OfferKey

    public init(_ offer: OfferKey) {
        self.offer = offer
    }

    public func answer(from snapshot: OpenSnapshot, context: ReadContext) throws -> Data {
        let changes = try snapshot.withReader { try $0.priceHistory(pharmacyID: offer.pharmacyID, aptcode: offer.aptcode) }
        return ReadAPI.encode(PriceHistoryAnswer(price_history: changes.map { .init(d: ReadAPIFormat.day($0.since), p: snapshot.prices.string($0.cents)) }))
    }
}
