import Foundation
@testable import IngestReadAPI
import IngestSnapshot
import Testing

/// `?q=ip` writes an item's offers out once per open snapshot and answers
/// later requests from them: whatever was asked before, an answer is the
/// one a snapshot opened afresh gives.
struct ItemOffersCacheTests {
    @Test func answersFromKeptOffersEqualAnswersReadAfresh() throws {
        let sample = SampleSnapshot.shared
        let version = try #require(sample.directory.currentVersion())
        let path = sample.directory.snapshotPath(version)
        let warm = try OpenSnapshot(path: path, version: version)
        let selma = ["latitude": "59.4137", "longitude": "24.6856"]
        // `inStock=1` first: the kept offers must still hold those with no stock.
        let asked: [[String: String]] = [
            ["aptcode": "MM0007145", "inStock": "1"], ["aptcode": "MM0007145"], selma.merging(["aptcode": "mm0007145"]) { $1 },
            selma.merging(["aptcode": "MM0007145", "onlyNearest": "1", "limit": "1"]) { $1 },
            ["aptcode": "MM0007145", "limit": "1", "offset": "1"], ["aptcode": "MM0034978"], selma.merging(["aptcode": "MM0034978", "inStock": "1"]) { $1 },
        ]
        for round in 1...2 {
            for parameters in asked {
                let query = try ReadQuery(parameters.merging(["q": "ip"]) { $1 })
                let fresh = try ReadAPI.answer(query, from: try OpenSnapshot(path: path, version: version), context: SampleSnapshot.wednesdayNoon)
                let kept = try ReadAPI.answer(query, from: warm, context: SampleSnapshot.wednesdayNoon)
                #expect(String(decoding: kept, as: UTF8.self) == String(decoding: fresh, as: UTF8.self), "round \(round): \(parameters)")
            }
        }
        let inStock = try ReadAPI.answer(try ReadQuery(["q": "ip", "aptcode": "MM0007145", "inStock": "1"]), from: warm)
        let all = try ReadAPI.answer(try ReadQuery(["q": "ip", "aptcode": "MM0007145"]), from: warm)
        #expect(inStock != all, "the sample has an offer of MM0007145 with no stock, which inStock=1 leaves out")
        // Two items are kept; an unknown one costs nothing and is not.
        let held = warm.itemOffers.held
        #expect(held > 0)
        let unknown = try ReadAPI.answer(try ReadQuery(["q": "ip", "aptcode": "MM9999999"]), from: warm)
        #expect(String(decoding: unknown, as: UTF8.self) == #"{"item_pharmacies":[],"total":"0"}"#)
        #expect(warm.itemOffers.held == held)
    }
}
