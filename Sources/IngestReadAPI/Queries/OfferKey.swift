/// An item at one pharmacy, what `q=id` and `q=h` are about: `aptcode`
/// (any letter case) and `client_id`.
public struct OfferKey: Equatable, Sendable {
    public var aptcode: String
    public var pharmacyID: String

    public init(aptcode: String, pharmacyID: String) {
        self.aptcode = aptcode
        self.pharmacyID = pharmacyID
    }

    init(_ parameters: QueryParameters) throws(ReadQuery.Invalid) {
        self.init(aptcode: try parameters.requiredCode("aptcode"), pharmacyID: try parameters.required("client_id"))
    }
}

/// A query about one offer (`q=id`, `q=h`): its parameters are the offer's key.
public protocol OfferQuery: ReadAPIQuery {
    init(_ offer: OfferKey)
}

extension OfferQuery {
    public init(_ parameters: QueryParameters) throws(ReadQuery.Invalid) {
        self.init(try OfferKey(parameters))
    }
}
