import Foundation
import IngestPipeline
@testable import IngestReadAPI
import IngestSnapshot
import IngestTestSupport
import Testing

/// READ_API.md Version 3, "Search that forgives", over two nights of a
/// small world: every case the apps' users were found typing (`orn`,
/// `sampoon`, `ibumetn`, `ibuprofeen`, `400 mg`, a decomposed `õrn`, `+`
/// for a space, a case GTIN, a Digital Link) with its exact answer, the
/// ranking rules, `rx`, and the second night: a corrected name is found by
/// its new words and a carried-over pharmacy's item is still found.
@Suite(.serialized) struct ForgivingSearchTests {
    /// One item of a Noom export (UTF-8, so it can carry decomposed letters).
    struct Item {
        var aptcode, name: String
        var producer = "", substance = "", packageCode = "", gtin = ""
    }

    /// Pharmacy 100's items; `night2Renames` its corrections on the second night.
    static let items = [
        Item(aptcode: "A1", name: "ŠAMPOON ÕRN 200ML", producer: "BIODERMA"),
        Item(aptcode: "A2", name: "ORNITHIN 400 MG TBL N20", producer: "ORNEX", substance: "Ornithinum"),
        Item(aptcode: "A3", name: "IBUMETIN TBL 400MG N10", producer: "NYCOMED", substance: "Ibuprofenum", packageCode: "1012341", gtin: "4740086000124"),
        Item(aptcode: "A4", name: "DOXY-M-RATIOPHARM TBL 100MG N10", producer: "TEVA", packageCode: "1144976"),
        // Decomposed: S + U+030C CARON, U + U+0304 MACRON.
        Item(aptcode: "A5", name: "S\u{30C}AMPU\u{304}NS 100ML", producer: "ANTI"),
        Item(aptcode: "A6", name: "TERBINAFIN KREEM 1%", producer: "SANDOZ"),
        Item(aptcode: "A7", name: "TE ROHELINE", producer: "SALUS"),
        Item(aptcode: "A8", name: "ANTI TERE", producer: "SALUS"),
        Item(aptcode: "A9", name: "PARACETAMOL 500MG N20", producer: "TEVA"),
    ]
    static let night2Renames = ["A1": "ŠAMPOON ÕRN MAHE 250ML"]

    static func noomExport(pharmacy: String, generated: String, _ items: [Item]) -> String {
        func escaped(_ text: String) -> String { text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;") }
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <stockExport xmlns="urn:noom:stock:2" version="2.1" generated="\(generated)">
              <pharmacy id="\(pharmacy)" chain="20">APTEEK \(pharmacy)</pharmacy>
              <items currency="EUR">

            """
        for item in items {
            xml += "    <item aptcode=\"\(item.aptcode)\"\(item.packageCode.isEmpty ? "" : " packageCode=\"\(item.packageCode)\"")>\n"
            if !item.gtin.isEmpty { xml += "      <gtin>\(item.gtin)</gtin>\n" }
            xml += "      <name>\(escaped(item.name))</name>\n"
            if !item.producer.isEmpty { xml += "      <producer>\(escaped(item.producer))</producer>\n" }
            if !item.substance.isEmpty { xml += "      <substance>\(escaped(item.substance))</substance>\n" }
            xml += "      <price net=\"2.00\" vatRate=\"9\"/>\n      <stock>3</stock>\n    </item>\n"
        }
        return xml + "  </items>\n  <summary itemCount=\"\(items.count)\"/>\n</stockExport>\n"
    }

    /// The world after `nights` nights (1 or 2), opened for reading. Night 1:
    /// pharmacies 100 and 200 (`A10`, KALAÕLI); night 2: only 100, with its
    /// corrections, so 200 is carried over.
    static func world(nights: Int) throws -> (OpenSnapshot, SnapshotQuery, TemporaryDirectory) {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        let snapshots = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        for reference in ["medicine_register_2011-05-01.csv", "gs1_datasheet_2015.xml"] {
            try FileManager.default.copyItem(atPath: RepositoryFiles.feed(reference), toPath: "\(feeds)/\(reference)")
        }
        var version = ""
        for night in 1...nights {
            let day = 20 + night
            var items = items
            if night == 2 { for index in items.indices { items[index].name = night2Renames[items[index].aptcode] ?? items[index].name } }
            try Data(noomExport(pharmacy: "100", generated: "2025-11-\(day)T23:05:00+02:00", items).utf8)
                .write(to: URL(fileURLWithPath: "\(feeds)/noom_100.xml"))
            if night == 1 {
                let other = [Item(aptcode: "A10", name: "KALAÕLI KAPSLID N100"), Item(aptcode: "A3", name: "IBUMETIN TBL 400MG N10")]
                try Data(noomExport(pharmacy: "200", generated: "2025-11-\(day)T23:05:00+02:00", other).utf8)
                    .write(to: URL(fileURLWithPath: "\(feeds)/noom_200.xml"))
            } else {
                try FileManager.default.removeItem(atPath: "\(feeds)/noom_200.xml")
            }
            let options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots.path, mappingsDirectory: RepositoryFiles.mappingsDirectory,
                                        parseThreads: 2, asOf: Date(timeIntervalSince1970: TimeInterval(1_763_697_600 + (night - 1) * 86_400)))
            version = try #require(try ImportRun(options: options).run().publishedVersion, "night \(night)")
        }
        let path = snapshots.snapshotPath(version)
        return (try OpenSnapshot(path: path, version: version), try SnapshotQuery(path), temporary)
    }

    static func answer(_ snapshot: OpenSnapshot, _ parameters: [String: String]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: ReadAPI.answer(try ReadQuery(parameters), from: snapshot)) as? [String: Any])
    }

    static func codes(_ snapshot: OpenSnapshot, _ search: String, _ more: [String: String] = [:]) throws -> [String] {
        let items = try answer(snapshot, ["q": "i", "search": search].merging(more) { $1 })["items"] as? [[String: String]]
        return (items ?? []).map { $0["a"] ?? "" }
    }

    @Test func whatPeopleTypeIsFoundAndRankedOnTheFirstNight() throws {
        let (snapshot, _, temporary) = try Self.world(nights: 1)
        defer { _ = temporary }
        // Diacritics: either way, the exact letters first.
        #expect(try Self.codes(snapshot, "orn") == ["A2", "A1"])
        #expect(try Self.codes(snapshot, "õrn") == ["A1", "A2"])
        #expect(try Self.codes(snapshot, "o\u{303}rn") == ["A1", "A2"], "a decomposed õ is the same letter")
        #expect(try Self.codes(snapshot, "sampoon") == ["A1"])
        #expect(try Self.codes(snapshot, "ŠAMPOON õr") == ["A1"])
        #expect(try Self.codes(snapshot, "sampuns") == ["A5"])
        #expect(try Self.codes(snapshot, "kalaoli") == ["A10"])
        // One typo in a word of 4 letters or more that starts no word.
        #expect(try Self.codes(snapshot, "ibumetn") == ["A3"])
        #expect(try Self.codes(snapshot, "ibuprofeen") == ["A3"], "the Estonian spelling, against the substance")
        #expect(try Self.codes(snapshot, "paracetamoll") == ["A9"])
        #expect(try Self.codes(snapshot, "ibumetn 400 mg") == ["A3"])
        #expect(try Self.codes(snapshot, "ibu") == ["A3"], "a prefix is never corrected")
        #expect(try Self.codes(snapshot, "ornx") == ["A2", "A1"], "corrected to orn: the name that starts with it first")
        #expect(try Self.codes(snapshot, "xyzw") == [], "nothing one edit away finds nothing")
        // Numbers and units whatever the spacing; the shorter name first.
        for text in ["400 mg", "400MG", "400 Mg", "400mg"] { #expect(try Self.codes(snapshot, text) == ["A3", "A2"], "\(text)") }
        // Ranking: name before producer, name starts first, then the shorter name.
        #expect(try Self.codes(snapshot, "te") == ["A7", "A6", "A8", "A9", "A4"])
        let page = try Self.answer(snapshot, ["q": "i", "search": "te", "limit": "2", "offset": "2"])
        #expect((page["items"] as? [[String: String]])?.map { $0["a"] ?? "" } == ["A8", "A9"])
        #expect(page["total"] as? String == "5" && page["next"] as? String == "4")
        // `+` is a space, as a form sends it; `%2B` a plus.
        let formed = try ReadQuery(QueryString.parameters("q=i&search=ibumetin+400+mg"))
        #expect(formed == .itemSearch(text: "ibumetin 400 mg", atc: nil, prescription: nil, page: .first))
    }

    /// A ranking is kept per snapshot (`OpenSnapshot.searches`): asked again,
    /// on another page, or with another limit, the answer is what a snapshot
    /// opened afresh gives.
    @Test func keptRankingsAnswerAsAFreshSnapshotDoes() throws {
        let (snapshot, _, temporary) = try Self.world(nights: 1)
        defer { _ = temporary }
        let fresh = { try OpenSnapshot(path: snapshot.path, version: snapshot.version) }
        let asked: [[String: String]] = [
            ["search": "te"], ["search": "te", "limit": "2"], ["search": "te", "limit": "2", "offset": "2"], ["search": "te", "offset": "4"],
            ["search": "te", "limit": "1"], ["search": "te"], ["search": "ibumetn"], ["search": "te", "rx": "0"], ["search": "tbl", "rx": "1"],
        ]
        for parameters in asked + asked {
            let query = try ReadQuery(["q": "i"].merging(parameters) { $1 })
            #expect(try ReadAPI.answer(query, from: snapshot) == ReadAPI.answer(query, from: try fresh()), "\(parameters)")
        }
        #expect(snapshot.searches.held > 0, "kept")
    }

    @Test func codesCasesAndDigitalLinksFindTheBaseItem() throws {
        let (snapshot, _, temporary) = try Self.world(nights: 1)
        defer { _ = temporary }
        for code in ["14740086000121", "(01)14740086000121(10)AB12", "0114740086000121", "https://id.gs1.org/01/04740086000124",
                     "https://id.gs1.org/01/4740086000124/10/AB12?17=271231", "HTTPS://shop.example.ee/p/01/14740086000121#x"] {
            #expect(try Self.codes(snapshot, code) == ["A3"], "\(code)")
        }
        #expect(try Self.codes(snapshot, "https://id.gs1.org/01/14740086000122") == [], "a wrong check digit")
        #expect(try Self.codes(snapshot, "https://id.gs1.org/10/14740086000121") == [], "no (01) in the path")
    }

    @Test func rxKeepsOrLeavesPrescriptionOnlyItemsAndEachItemSaysIt() throws {
        let (snapshot, _, temporary) = try Self.world(nights: 1)
        defer { _ = temporary }
        let all = try #require(try Self.answer(snapshot, ["q": "i", "search": "tbl"])["items"] as? [[String: String]])
        #expect(all.map { [$0["a"] ?? "", $0["rx"] ?? "?"] } == [["A3", "0"], ["A2", ""], ["A4", "1"]])
        #expect(try Self.codes(snapshot, "tbl", ["rx": "0"]) == ["A3", "A2"])
        #expect(try Self.codes(snapshot, "tbl", ["rx": "1"]) == ["A4"])
        #expect(try Self.codes(snapshot, "1144976", ["rx": "0"]) == [], "a code too")
        #expect(throws: ReadQuery.Invalid.self) { try ReadQuery(["q": "i", "search": "tbl", "rx": "yes"]) }
    }

    @Test func theSecondNightFindsTonightsNamesAndCarriedItems() throws {
        let (snapshot, database, temporary) = try Self.world(nights: 2)
        defer { _ = temporary }
        #expect(database.value("SELECT stale FROM pharmacies WHERE id = '200'") == "1")
        #expect(try Self.codes(snapshot, "mahe") == ["A1"], "tonight's corrected name")
        #expect(try Self.codes(snapshot, "sampoon 200") == [], "yesterday's name is gone")
        #expect(try Self.codes(snapshot, "kalaoli") == ["A10"], "the carried pharmacy's item")
        #expect(try Self.codes(snapshot, "mahhe") == ["A1"], "its new word is in the vocabulary")
        // Stored composed, so the contract's own index finds it with a composed query.
        #expect(database.rows("SELECT aptcode, name FROM items_search WHERE items_search MATCH '\"šampūns\"*'") == [["A5", "ŠAMPŪNS 100ML"]])
        #expect(database.value("SELECT name FROM items WHERE aptcode = 'A5'") == "\u{160}AMP\u{16A}NS 100ML")
    }
}
