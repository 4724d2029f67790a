import Foundation
import IngestReadAPI
import IngestSnapshot
import IngestTestSupport
import Testing

/// The queries answered from the sample feeds' snapshot, against
/// READ_API.md's own example and the snapshot's rows.
@Suite struct ReadAPIAnswerTests {
    /// READ_API.md's item-details example, as the document prints it.
    static let itemDetailsExample = #"""
        {"item_details": [{
          "itemId": "MM0007145", "itemName": "DOXY-M-RATIOPHARM TBL 100MG N10",
          "producerName": "RATIOPHARM GmbH", "pharmacyName": "SELMA APTEEK",
          "price": "2.37€", "priceLimit": "1.89€",
          "priceDisc50": "2.37€", "priceDisc75": "", "priceDisc90": "",
          "priceDisc100": "1.75€",
          "diagnose50": "", "diagnose75": "", "diagnose100": "(A50-A53)*",
          "info50": "", "info75": "", "info100": "*rv dermatoveneroloogil",
          "atc": "J01AA02", "actSubst": "Doxycyclinum",
          "diagExpl": [{"name": "rv", "text": "ravimi väljakirjutamise õigus"}],
          "infoUrl": "https://register.example/leaflet/1144976.pdf",
          "imageUrl": ""
        }]}
        """#

    /// Version 2 adds the register's fields; every field of the example stays as it was.
    @Test func itemDetailsReproduceTheDocumentsExample() throws {
        let answer = try #require(try SampleSnapshot.groups(["q": "id", "aptcode": "MM0007145", "client_id": "31937"]))
        let example = try #require(try JSONSerialization.jsonObject(with: Data(Self.itemDetailsExample.utf8)) as? [String: [[String: Any]]])
        let details = try #require(answer["item_details"]?.first)
        let expected = try #require(example["item_details"]?.first)
        #expect(NSDictionary(dictionary: details.filter { expected[$0.key] != nil }) == NSDictionary(dictionary: expected), "\(details)")
        #expect(Set(details.keys).subtracting(expected.keys) == ["form", "strength", "packSize", "rx", "spcUrl", "diagnoses"])
        #expect(["form", "strength", "packSize", "rx", "spcUrl"].map { details[$0] as? String }
                == ["tablett", "100mg", "10", "1", "https://register.example/spc/1144976.pdf"])
    }

    /// READ_API.md Version 2: codes in any letter case; an item the register does not know has its fields empty.
    @Test func codesMatchInAnyCaseAndUnknownRegisterFieldsAreEmpty() throws {
        for (lower, upper) in [(["q": "id", "aptcode": "mm0007145", "client_id": "31937"], ["q": "id", "aptcode": "MM0007145", "client_id": "31937"]),
                               (["q": "ip", "aptcode": "mm0034978"], ["q": "ip", "aptcode": "MM0034978"]),
                               (["q": "a", "atc": "j01"], ["q": "a", "atc": "J01"])] {
            let a = try SampleSnapshot.answer(lower) as? NSDictionary
            let b = try SampleSnapshot.answer(upper) as? NSDictionary
            #expect(a != nil && a == b, "\(lower)")
        }
        let atc = try #require(try SampleSnapshot.lists(["q": "a", "atc": "j01"]))
        #expect(atc["atc"]?.isEmpty == false)
        let shampoo = try #require(try SampleSnapshot.groups(["q": "id", "aptcode": "MM0200001", "client_id": "31937"]))
        let fields = try #require(shampoo["item_details"]?.first)
        #expect(["form", "strength", "packSize", "rx", "spcUrl"].map { fields[$0] as? String } == ["", "", "", "", ""])
        let otc = try #require(try SampleSnapshot.groups(["q": "id", "aptcode": "MM0034978", "client_id": "31937"]))
        #expect(otc["item_details"]?.first?["rx"] as? String == "0")
    }

    @Test func anUnknownItemOrPharmacyHasNoDetails() throws {
        for parameters in [["aptcode": "NOPE", "client_id": "31937"], ["aptcode": "MM0007145", "client_id": "99999"]] {
            let answer = try SampleSnapshot.answer(parameters.merging(["q": "id"]) { $1 }) as? NSDictionary
            #expect(answer == ["item_details": []] as NSDictionary)
        }
    }

    @Test func searchFindsWordPrefixesByNameAndAnswersAnyText() throws {
        let found = try #require(try SampleSnapshot.lists(["q": "i", "search": "ibu"]))
        #expect(found["items"]?.map { $0["n"] ?? "" } == ["IBUMETIN TBL 400MG N10", "IBUMETIN TBL 400MG N30", "IBUPROFEN 200MG TBL N20; forte"])
        #expect(found["items"]?.first == ["a": "MM0034978", "n": "IBUMETIN TBL 400MG N10", "p": "NYCOMED", "rx": "0"])
        let shampoo = try #require(try SampleSnapshot.lists(["q": "i", "search": "ŠAMPOON õr"]))
        #expect(shampoo["items"]?.map { $0["a"] ?? "" } == ["MM0200001"])
        // Whatever is typed is answered: FTS5 operators, quotes, brackets, column filters, control characters.
        var random = TestRandom(defaultSeed: 71)
        let alphabet = Array("ab ÕŠ\"'*^:-+()[]{}NEARORAND\\\u{0}\t\n…🙂0-9")
        let texts = ["\"", "\"\"\"", "doxy-m*", "name:ibu", "NEAR(ibu doxy)", "ibu OR", "AND", "(", "*", "^ibu", "{name}: x", "ibu\u{0}",
                     String(repeating: "a ", count: 5000)]
            + (0..<300).map { _ in String((0..<Int.random(in: 1...24, using: &random)).map { _ in alphabet.randomElement(using: &random)! }) }
        for text in texts {
            let answer = try SampleSnapshot.groups(["q": "i", "search": text])
            #expect(answer?["items"] != nil, "\(text), \(random.replay)")
        }
    }

    @Test func pharmaciesAreGroupedByRegionOrNearest() throws {
        let list = try #require(try SampleSnapshot.groups(["q": "p"]))
        let regions = try #require(list["regions"])
        #expect(regions.map { $0["n"] as? String ?? "" } == regions.map { $0["n"] as? String ?? "" }.sorted())
        let tallinn = try #require(regions.first { $0["n"] as? String == "TALLINN" }?["p"] as? [[String: String]])
        #expect(tallinn.map { $0["n"] ?? "" } == ["AASA APTEEK", "SELMA APTEEK"])
        #expect(tallinn[0] == ["i": "5060", "n": "AASA APTEEK", "d": "30.12.2010", "p": "+372-608-6565", "a": "Mustakivi tee 3A, 13912 Tallinn",
                               "c": "20", "o": "E-R 10-21; L,P 12-20", "l": "59.4380086,24.8713330", "ic": "4", "s": "0",
                               "on": "1", "oh": "10:00-21:00"])
        // Near Selma: it comes first, with its distance; no more than ten, one group.
        let nearest = try #require(try SampleSnapshot.groups(["q": "ip", "aptcode": "MM0007145", "latitude": "59.4137",
                                                              "longitude": "24.6856", "onlyNearest": "1"]))
        let group = try #require(nearest["item_pharmacies"]?.first)
        #expect(nearest["item_pharmacies"]?.count == 1 && group["n"] as? String == "Nearest")
        let offers = try #require(group["p"] as? [[String: String]])
        #expect(offers.first == ["i": "MM0007145", "pi": "31937", "n": "SELMA APTEEK", "p": "2.37€", "q": "5", "d": "19.05.2011", "s": "0",
                                 "on": "1", "oh": "08:00-22:00", "di": "187 m"])
        #expect(offers.count == 3 && offers.map { $0["pi"] ?? "" } == ["31937", "5060", "5061"])
    }

    @Test func theATCTreeListsChildrenWithTheirItemCounts() throws {
        let top = try #require(try SampleSnapshot.lists(["q": "a"]))
        #expect(top["atc"]?.map { $0["a"] ?? "" } == ["A", "J", "M", "N"])
        #expect(top["atc"]?[2] == ["a": "M", "n": "LIHASTE JA LUUSTIKU SÜSTEEM", "c": "3", "cc": "1"])
        // Version 3: `cc` says whether there is anything to drill down to; a substance (level 5) has no children.
        let substances = try #require(try SampleSnapshot.lists(["q": "a", "atc": "M01AE"]))
        #expect(substances["atc"]?.map { [$0["a"] ?? "", $0["cc"] ?? ""] } == [["M01AE01", "0"]])
        let unknown = try SampleSnapshot.answer(["q": "a", "atc": "ZZZ"]) as? NSDictionary
        #expect(unknown == ["atc": []] as NSDictionary)
    }

    /// READ_API.md Version 2: each offer says its stock; `inStock=1` keeps
    /// quantities above zero and price lists that report none.
    @Test func offersSayTheirStockAndInStockKeepsThoseSelling() throws {
        // DOXY-M: SELMA has 5, AASA 14, ÜLIKOOLI 0.
        let all = try #require(try SampleSnapshot.groups(["q": "ip", "aptcode": "MM0007145"]))
        let offers = (all["item_pharmacies"] ?? []).flatMap { $0["p"] as? [[String: String]] ?? [] }
        #expect(offers.map { [$0["pi"] ?? "", $0["q"] ?? ""] }.sorted { $0[0] < $1[0] } == [["31937", "5"], ["5060", "14"], ["5061", "0"]])
        let selling = try #require(try SampleSnapshot.groups(["q": "ip", "aptcode": "MM0007145", "inStock": "1"]))
        let kept = (selling["item_pharmacies"] ?? []).flatMap { $0["p"] as? [[String: String]] ?? [] }.compactMap { $0["pi"] }.sorted()
        #expect(kept == ["31937", "5060"])
    }

    /// READ_API.md Version 2: the thesis's "item search by the ATC code", alone or with words.
    @Test func searchByATCPrefixAloneOrWithWords() throws {
        func names(_ parameters: [String: String]) throws -> [String] {
            let found = try #require(try SampleSnapshot.lists(parameters))
            return found["items"]?.map { $0["n"] ?? "" } ?? []
        }
        #expect(try names(["q": "i", "atc": "j01"]) == ["DOXY-M-RATIOPHARM TBL 100MG N10"])
        #expect(try names(["q": "i", "atc": "M01AE01"]) == ["IBUMETIN TBL 400MG N10", "IBUMETIN TBL 400MG N30", "IBUPROFEN 200MG TBL N20; forte"])
        #expect(try names(["q": "i", "search": "ibum", "atc": "M"]) == ["IBUMETIN TBL 400MG N10", "IBUMETIN TBL 400MG N30"])
        #expect(try names(["q": "i", "search": "ibu", "atc": "N"]) == [])
        #expect(try names(["q": "i", "search": "***", "atc": "M"]) == [], "words that match nothing find nothing")
    }

    /// READ_API.md Version 2: a code matches exactly — an aptcode, a package
    /// code, a GTIN in any form, a scanned GS1 element string — and words
    /// match the producer and the substance too.
    @Test func searchFindsCodesScansProducersAndSubstances() throws {
        func codes(_ search: String) throws -> [String] {
            let found = try #require(try SampleSnapshot.lists(["q": "i", "search": search]))
            return found["items"]?.map { $0["a"] ?? "" } ?? []
        }
        // IBUMETIN N10: aptcode MM0034978, package code 1012341, GTIN 04740086000124.
        for scan in ["mm0034978", "1012341", "4740086000124", "04740086000124", "0104740086000124", "(01)04740086000124",
                     "(01)04740086000124(17)271231(10)AB12", "]C10104740086000124172712311" + "0AB12",
                     "]d20104740086000124\u{1D}10AB12\u{1D}17271231", "0104740086000124\u{1D}10AB12"] {
            #expect(try codes(scan) == ["MM0034978"], "\(scan.debugDescription)")
        }
        #expect(try codes("4740086000125") == [], "a wrong check digit is no GTIN")
        #expect(try codes("(01)4740086000124") == [], "AI (01) carries 14 digits")
        #expect(try codes("nycomed") == ["MM0034978", "MM0034371"], "by name: IBUMETIN TBL 400MG N10, then N30")
        #expect(try codes("doxycyclinum") == ["MM0007145"])
        let scannedInGroup = try #require(try SampleSnapshot.lists(["q": "i", "search": "(01)04740086000124", "atc": "J01"]))
        #expect(scannedInGroup["items"]?.isEmpty == true, "a code outside the ATC prefix is left out")
    }
}

