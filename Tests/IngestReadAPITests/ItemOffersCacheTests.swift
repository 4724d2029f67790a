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

    /// The server answers on the request's thread what memory alone gives:
    /// `q=p` always, `q=ip` once the item's offers are kept, `q=eq` once its
    /// group's are, no other query;
    /// and that answer is the one read from the file.
    @Test func answersFromMemoryAreTheFilesAnswers() throws {
        let sample = SampleSnapshot.shared
        let version = try #require(sample.directory.currentVersion())
        let snapshot = try OpenSnapshot(path: sample.directory.snapshotPath(version), version: version)
        let context = SampleSnapshot.wednesdayNoon
        let pharmacies = try ReadQuery(["q": "p", "latitude": "59.4137", "longitude": "24.6856"])
        let fromMemory = try #require(try ReadAPI.answerFromMemory(pharmacies, of: snapshot, context: context))
        #expect(fromMemory == (try ReadAPI.answer(pharmacies, from: snapshot, context: context)))

        let offers = try ReadQuery(["q": "ip", "aptcode": "MM0007145", "latitude": "59.4137", "longitude": "24.6856"])
        #expect(try ReadAPI.answerFromMemory(offers, of: snapshot, context: context) == nil, "not asked yet: the file is read")
        let fromFile = try ReadAPI.answer(offers, from: snapshot, context: context)
        let kept = try #require(try ReadAPI.answerFromMemory(offers, of: snapshot, context: context))
        #expect(String(decoding: kept, as: UTF8.self) == String(decoding: fromFile, as: UTF8.self))
        #expect(try ReadAPI.answerFromMemory(try ReadQuery(["q": "ip", "aptcode": "MM0034978"]), of: snapshot, context: context) == nil)

        // `q=eq`: the item's group and the group's offers kept once, then every tier and position from memory; `packs=any` is another group.
        let cheapest = ["q": "eq", "aptcode": "MM0007145", "latitude": "59.4137", "longitude": "24.6856"]
        #expect(try ReadAPI.answerFromMemory(try ReadQuery(cheapest), of: snapshot, context: context) == nil, "not asked yet: the file is read")
        let ranked = try ReadAPI.answer(try ReadQuery(cheapest), from: snapshot, context: context)
        #expect(String(decoding: ranked, as: UTF8.self).contains("\"i\":\"MM0007145\""))
        for more in [[:], ["tier": "75"], ["tier": "100", "limit": "1"], ["latitude": "58.38", "longitude": "26.72", "radius": "30"]] {
            let query = try ReadQuery(cheapest.merging(more) { $1 })
            let kept = try #require(try ReadAPI.answerFromMemory(query, of: snapshot, context: context), "\(more)")
            #expect(String(decoding: kept, as: UTF8.self) == String(decoding: try ReadAPI.answer(query, from: snapshot, context: context), as: UTF8.self))
        }
        #expect(try ReadAPI.answerFromMemory(try ReadQuery(cheapest.merging(["packs": "any"]) { $1 }), of: snapshot, context: context) == nil)
        #expect(try ReadAPI.answerFromMemory(try ReadQuery(["q": "eq", "aptcode": "NOPE"]), of: snapshot, context: context) == nil)

        for other in [["q": "i", "search": "ibu"], ["q": "id", "aptcode": "MM0007145", "client_id": "31461"], ["q": "a"]] {
            #expect(try ReadAPI.answerFromMemory(try ReadQuery(other), of: snapshot, context: context) == nil, "\(other)")
        }
    }
}
