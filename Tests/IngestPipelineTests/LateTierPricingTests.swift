import IngestAdapters
import IngestCore
import IngestSnapshot
import Testing
@testable import IngestPipeline

/// Issue 47, item 2: late tier prices as a stage of their own. An item
/// whose package code came only with a later pharmacy's feed: the offers of
/// the pharmacies before it get their tier prices at the end, each with the
/// fee period of its own export date; the pharmacies after it were priced
/// when written.
@Suite struct LateTierPricingTests {
    static func pharmacy(_ id: String, exported: String) -> PharmacyRow {
        PharmacyRow(id: id, name: id, chainID: nil, region: "Harju", address: nil, phone: nil, openHours: nil, latitude: nil, longitude: nil,
                    lastRefresh: exported, itemCount: 1, stale: false)
    }

    @Test func theOffersWrittenBeforeTheCodeCameArePricedInByteOrder() throws {
        var catalog = ReimbursementCatalog()
        catalog.add(code: "1234567", limitCents: 500, tiers: [ReimbursementTier(rate: 50, diagnoses: nil, info: nil)])
        let pricer = TierPricer(rules: .statutory, catalog: catalog)
        let pharmacies = ["3000", "1000", "2000", "4000"].map { Self.pharmacy($0, exported: "2025-11-20T23:05:00+02:00") }
        var pricing = LateTierPricing()
        // The code arrived with the fourth pharmacy (index 3): the first three wait.
        pricing.note("MM1", before: 3)
        pricing.note("MM2", before: 1)
        var written: [String: OfferRow] = [:]
        for pharmacy in pharmacies {
            for aptcode in ["MM1", "MM2"] { written[pharmacy.id + aptcode] = OfferRow(aptcode: aptcode, priceCents: 800, quantity: 1) }
        }
        written["2000MM1"]?.limitPriceCents = 1 // priced already: left alone
        let updates = try pricing.updates(pharmacies: pharmacies, pricer: pricer, offer: { written[$0 + $1] },
                                          packageCode: { ["MM1": "1234567", "MM2": "1234567"][$0] })
        #expect(updates.map { "\($0.pharmacyID) \($0.row.aptcode)" } == ["1000 MM1", "3000 MM1", "3000 MM2"])
        #expect(updates.allSatisfy { $0.row.limitPriceCents == 500 && $0.row.price50Cents != nil })
        // An item the list does not know gets nothing.
        let unlisted = try pricing.updates(pharmacies: pharmacies, pricer: pricer, offer: { written[$0 + $1] }, packageCode: { _ in "9999999" })
        #expect(unlisted.isEmpty)
    }
}
