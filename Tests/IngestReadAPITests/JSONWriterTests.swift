import Foundation
@testable import IngestReadAPI
import Testing

/// The hand-written JSON: valid, exact for any text, keys in the document's order.
@Suite struct JSONWriterTests {
    @Test func anyTextRoundTrips() throws {
        let texts = ["", "plain", "quote \" and \\ backslash", "line\nfeed\ttab\r", "\u{0}\u{1}\u{1F}\u{7F}", "õäöüšž ŠAMPOON 🙂", "</script>"]
        for text in texts {
            let bytes = ErrorBody(error: text).json
            let parsed = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: String]
            #expect(parsed == ["error": text], "\(text.debugDescription)")
        }
        #expect(String(decoding: ErrorBody(error: "a\"\u{1}").json, as: UTF8.self) == #"{"error":"a\"\u0001"}"#)
    }

    @Test func itemDetailsKeepTheDocumentsKeyOrder() throws {
        let details = ItemDetails.Details(itemId: "1", itemName: "", producerName: "", pharmacyName: "", price: "", priceLimit: "",
                                          priceDisc50: "", priceDisc75: "", priceDisc90: "", priceDisc100: "", diagnose50: "", diagnose75: "",
                                          diagnose100: "", info50: "", info75: "", info100: "", atc: "", actSubst: "",
                                          diagExpl: [.init(name: "rv", text: "t")], infoUrl: "", imageUrl: "")
        let text = String(decoding: ItemDetails(item_details: [details]).json, as: UTF8.self)
        let keys = try NSRegularExpression(pattern: #""([A-Za-z_0-9]+)":"#).matches(in: text, range: NSRange(text.startIndex..., in: text))
            .map { String(text[Range($0.range(at: 1), in: text)!]) }
        #expect(keys == ["item_details", "itemId", "itemName", "producerName", "pharmacyName", "price", "priceLimit", "priceDisc50", "priceDisc75",
                         "priceDisc90", "priceDisc100", "diagnose50", "diagnose75", "diagnose100", "info50", "info75", "info100", "atc",
                         "actSubst", "diagExpl", "name", "text", "infoUrl", "imageUrl",
                         // Version 2's register fields come after the document's own, then Version 3's named diagnoses.
                         "form", "strength", "packSize", "rx", "spcUrl", "diagnoses"])
    }

    /// The writer's memory grows past what was reserved, and the body it
    /// hands over holds every byte written, in order.
    @Test func anAnswerLargerThanItsReserveIsWhole() throws {
        var writer = JSONWriter(capacity: 1)
        let names = (0..<2_000).map { "APTEEK \($0) \"Õie\"" }
        writer.object { writer in
            writer.key("p")
            writer.array { writer in
                for name in names { writer.object { $0.field("n", name); $0.distance(Double(name.count) * 700) } }
            }
        }
        let body = writer.finish()
        #expect(body.count > 60_000)
        let parsed = try #require(try JSONSerialization.jsonObject(with: body) as? [String: [[String: String]]])
        #expect(parsed["p"]?.map { $0["n"] ?? "" } == names)
        #expect(parsed["p"]?.first?["di"] == "10 km", "14 letters: 9,800 m")
        #expect(String(decoding: body, as: UTF8.self).hasPrefix(#"{"p":[{"n":"APTEEK 0 \"Õie\"","di":"10 km"},{"n":"APTEEK 1 "#))
    }
}
