import Foundation

/// `q=id`: one item at one pharmacy: prices, tier prices, the diagnoses
/// that allow each tier, the register's and the list's details.
public struct ItemDetailsQuery: OfferQuery {
    public static let name = "id"
    public static let documentation = QueryDocumentation(
        summary: "item details at a pharmacy (aptcode, client_id)", parameters: ["aptcode", "client_id"], answerSchema: "ItemDetails")

    public var offer: OfferKey

    public init(_ offer: OfferKey) {
        self.offer = offer
    }

    public func answer(from snapshot: OpenSnapshot, context: ReadContext) throws -> Data {
        ReadAPI.encode(ItemDetails(item_details: try ReadAPI.itemDetails(snapshot, aptcode: offer.aptcode, pharmacyID: offer.pharmacyID).map { [$0] } ?? []))
    }
}

extension ReadAPI {
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
