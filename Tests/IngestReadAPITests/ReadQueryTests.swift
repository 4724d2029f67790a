import IngestReadAPI
import Testing

/// What a client can send: each query with its parameters, and every way of
/// getting one wrong answered as a 400 with its reason.
@Suite struct ReadQueryTests {
    @Test func eachQueryIsReadWithItsParameters() throws {
        let tallinn = GeoPoint(latitude: 59.437, longitude: 24.7536)
        #expect(try ReadQuery(["q": "p"]) == .pharmacies(near: nil, onlyNearest: false))
        #expect(try ReadQuery(["q": "p", "latitude": "59.437", "longitude": "24.7536", "onlyNearest": "1"]) == .pharmacies(near: tallinn, onlyNearest: true))
        #expect(try ReadQuery(["q": "i", "search": "doxy-m*"]) == .itemSearch(text: "doxy-m*"))
        #expect(try ReadQuery(["q": "i", "atc": "j01"]) == .itemSearch(text: "", atc: "J01"))
        #expect(try ReadQuery(["q": "i", "search": "ibu", "atc": "M01"]) == .itemSearch(text: "ibu", atc: "M01"))
        #expect(try ReadQuery(["q": "i", "search": ""]) == .itemSearch(text: ""))
        #expect(try ReadQuery(["q": "ip", "aptcode": "MM1", "onlyNearest": "0"]) == .itemPharmacies(aptcode: "MM1", near: nil, onlyNearest: false))
        #expect(try ReadQuery(["q": "ip", "aptcode": "mm1", "inStock": "1"]) == .itemPharmacies(aptcode: "MM1", near: nil, onlyNearest: false, inStock: true))
        #expect(throws: ReadQuery.Invalid(reason: "inStock is 0 or 1, not \"yes\"")) { try ReadQuery(["q": "ip", "aptcode": "MM1", "inStock": "yes"]) }
        #expect(try ReadQuery(["q": "id", "aptcode": "MM1", "client_id": "31937"]) == .itemDetails(aptcode: "MM1", pharmacyID: "31937"))
        #expect(try ReadQuery(["q": "a"]) == .atc(parent: nil))
        #expect(try ReadQuery(["q": "a", "atc": "J01"]) == .atc(parent: "J01"))
        #expect(try ReadQuery(["q": "changes", "since": "20261121T083215Z-001"]) == .changes(since: "20261121T083215Z-001"))
        // A parameter that means nothing to the query is ignored when it is well formed.
        #expect(try ReadQuery(["q": "a", "latitude": "59.437", "longitude": "24.7536", "limit": "3"]) == .atc(parent: nil))
        // Version 2: paging on the lists, a clamped limit, the equivalents with a tier.
        #expect(try ReadQuery(["q": "i", "search": "a", "limit": "20", "offset": "40"]) == .itemSearch(text: "a", page: ResultPage(limit: 20, offset: 40)))
        #expect(try ReadQuery(["q": "p", "offset": "3"]) == .pharmacies(near: nil, onlyNearest: false, page: ResultPage(limit: nil, offset: 3)))
        #expect(try ReadQuery(["q": "ip", "aptcode": "MM1", "limit": "99999999999999999999999"])
                == .itemPharmacies(aptcode: "MM1", near: nil, onlyNearest: false, page: ResultPage(limit: Int.max, offset: 0)))
        #expect(try ReadQuery(["q": "eq", "aptcode": "mm1", "latitude": "59.437", "longitude": "24.7536", "tier": "75"])
                == .equivalents(aptcode: "MM1", near: tallinn, tier: 75, limit: 20))
        #expect(try ReadQuery(["q": "eq", "aptcode": "MM1", "limit": "900"]) == .equivalents(aptcode: "MM1", near: nil, tier: nil, limit: 500))
    }

    @Test(arguments: [
        ([String: String](), "missing parameter q (p, i, ip, id, a, h, eq, dx, g or changes)"),
        (["q": "x"], "unknown q=\"x\": expected p, i, ip, id, a, h, eq, dx, g or changes"),
        (["q": "i"], "q=i needs the parameter search or atc"),
        (["q": "ip"], "q=ip needs the parameter aptcode"),
        (["q": "id", "aptcode": "MM1"], "q=id needs the parameter client_id"),
        (["q": "changes"], "q=changes needs the parameter since"),
        (["q": "p", "latitude": "abc", "longitude": "24"], "latitude is not a number of degrees in -90…90: \"abc\""),
        (["q": "p", "latitude": "1e1", "longitude": "24"], "latitude is not a number of degrees in -90…90: \"1e1\""),
        (["q": "p", "latitude": "nan", "longitude": "24"], "latitude is not a number of degrees in -90…90: \"nan\""),
        (["q": "p", "latitude": "91", "longitude": "24"], "latitude is not a number of degrees in -90…90: \"91\""),
        (["q": "ip", "aptcode": "MM1", "latitude": "59", "longitude": "0x1A"], "longitude is not a number of degrees in -180…180: \"0x1A\""),
        (["q": "p", "latitude": "59"], "latitude and longitude come together"),
        (["q": "p", "onlyNearest": "1"], "onlyNearest=1 needs latitude and longitude"),
        (["q": "p", "limit": "0"], "limit is 1 or more"),
        (["q": "p", "limit": "-1"], "limit is a whole number, not \"-1\""),
        (["q": "i", "search": "x", "offset": "1.5"], "offset is a whole number, not \"1.5\""),
        (["q": "i", "search": "x", "offset": ""], "offset is a whole number, not \"\""),
        (["q": "eq"], "q=eq needs the parameter aptcode"),
        (["q": "eq", "aptcode": "MM1", "tier": "60"], "tier is 50, 75, 90 or 100, not \"60\""),
        (["q": "x\u{1B}[2J" + String(repeating: "y", count: 100)],
         "unknown q=\"x\\u{1B}[2J" + String(repeating: "y", count: 35) + "…\": expected p, i, ip, id, a, h, eq, dx, g or changes"),
        (["q": "a", "latitude": "north", "longitude": "24"], "latitude is not a number of degrees in -90…90: \"north\""),
        (["q": "h", "aptcode": "A", "client_id": "1", "inStock": "2"], "inStock is 0 or 1, not \"2\""),
        (["q": "p", "latitude": "", "longitude": ""], "latitude is not a number of degrees in -90…90: \"\""),
        (["q": "p", "onlyNearest": "yes"], "onlyNearest is 0 or 1, not \"yes\""),
    ])
    func aWrongRequestSaysWhatIsWrong(parameters: [String: String], reason: String) {
        #expect(throws: ReadQuery.Invalid(reason: reason)) { try ReadQuery(parameters) }
    }
}
