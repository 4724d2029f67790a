import Foundation
import IngestPipeline
import IngestReadAPI
import IngestSnapshot
import IngestTestSupport
import Testing

/// READ_API.md Version 3's `q=eq` over two nights: register fields that
/// are empty match only empty fields (the item itself is never lost), a
/// package the register does not list is answered with its own offers,
/// `radius` limits the search, and `packs=any` ranks other pack sizes by the
/// price of one unit (`pu`). On night 2 the register loses E3's strength,
/// so E3 joins E1's group.
@Suite(.serialized) struct EquivalentsVersionThreeTests {
    /// package code (check digit: the sum of the first six digits), strength, pack size per item.
    static let register = [
        1: [("E1", "1000001", "", "20"), ("E2", "1000012", "", "20"), ("E3", "1000023", "500mg", "20"), ("E4", "1000034", "", "10")],
        2: [("E1", "1000001", "", "20"), ("E2", "1000012", "", "20"), ("E3", "1000023", "", "20"), ("E4", "1000034", "", "10")],
    ]
    static let prices = ["100": ["E1": "2,00", "E2": "1,80", "E3": "1,00", "E4": "1,50", "E5": "3,00"],
                         "200": ["E1": "1,90", "E4": "0,90"], "300": ["E2": "1,50"]]
    static let tallinn = ["latitude": "59.437", "longitude": "24.754"]

    static func night(_ last: Int) throws -> (OpenSnapshot, TemporaryDirectory) {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        let snapshots = SnapshotDirectory(path: "\(temporary.path)/snapshots")
        var version = ""
        for night in 1...last {
            for file in try FileManager.default.contentsOfDirectory(atPath: feeds) { try FileManager.default.removeItem(atPath: "\(feeds)/\(file)") }
            _ = temporary.write("feeds/pharmacies.csv", text: """
                id,name,chain_id,region,address,phone,open_hours,latitude,longitude
                100,APTEEK 100,1,TALLINN,Tee 1,+372 1,24/7,59.437,24.754
                200,APTEEK 200,1,TALLINN,Tee 2,+372 2,24/7,59.437,24.930
                300,APTEEK 300,1,TARTU,Tee 3,+372 3,24/7,58.380,26.720

                """)
            var rows = "package_code;name;form;strength;pack_size;atc;active_substance;leaflet_url;spc_url;prescription\n"
            for (aptcode, package, strength, pack) in register[night]! {
                rows += "\(package);PARA \(aptcode);tablett;\(strength);\(pack);N02BE01;Paracetamolum;;;OTC\n"
            }
            _ = temporary.write("feeds/medicine_register_2025-11-0\(night).csv", text: rows)
            let packages = Dictionary(uniqueKeysWithValues: register[night]!.map { ($0.0, $0.1) })
            for (pharmacy, items) in prices {
                var feed = RAXFeedBuilder(pharmacyID: pharmacy, pharmacyName: "APTEEK \(pharmacy)", exportedAt: "202511\(19 + night)T2305")
                for (aptcode, price) in items.sorted(by: { $0.key < $1.key }) {
                    feed.item(aptcode, package: packages[aptcode] ?? "", name: "PARA \(aptcode)", price: price, quantity: "5")
                }
                _ = temporary.write("feeds/rax_\(pharmacy).txt", bytes: feed.bytes)
            }
            let options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots.path, mappingsDirectory: RepositoryFiles.mappingsDirectory,
                                        parseThreads: 2, asOf: Date(timeIntervalSince1970: TimeInterval(1_763_697_600 + (night - 1) * 86_400)))
            version = try #require(try ImportRun(options: options).run().publishedVersion, "night \(night)")
        }
        return (try OpenSnapshot(path: snapshots.snapshotPath(version), version: version), temporary)
    }

    /// `pharmacy/item/price[/pu]` of each equivalent.
    static func ranked(_ snapshot: OpenSnapshot, _ parameters: [String: String]) throws -> [String] {
        let body = try JSONSerialization.jsonObject(with: ReadAPI.answer(try ReadQuery(["q": "eq"].merging(parameters) { $1 }), from: snapshot))
        return ((body as? [String: [[String: String]]])?["equivalents"] ?? []).map { entry in
            ["pi", "i", "p"].map { entry[$0] ?? "" }.joined(separator: "/") + (entry["pu"].map { "/" + $0 } ?? "")
        }
    }

    @Test func emptyFieldsMatchEmptyFieldsRadiusLimitsAndOtherPacksRankPerUnit() throws {
        let (snapshot, temporary) = try Self.night(1)
        defer { _ = temporary }
        let nearTallinn = Self.tallinn.merging(["aptcode": "E1"]) { $1 }
        #expect(try Self.ranked(snapshot, nearTallinn) == ["300/E2/1.50€", "100/E2/1.80€", "200/E1/1.90€", "100/E1/2.00€"],
                "no strength on E1 or E2: the same; E3's 500mg is another medicine")
        #expect(try Self.ranked(snapshot, nearTallinn.merging(["radius": "20"]) { $1 }) == ["100/E2/1.80€", "200/E1/1.90€", "100/E1/2.00€"])
        #expect(try Self.ranked(snapshot, nearTallinn.merging(["packs": "any"]) { $1 }) == [
            "300/E2/1.50€/0.08€", "100/E2/1.80€/0.09€", "200/E4/0.90€/0.09€", "200/E1/1.90€/0.10€", "100/E1/2.00€/0.10€", "100/E4/1.50€/0.15€",
        ])
        #expect(try Self.ranked(snapshot, ["aptcode": "E3"]) == ["100/E3/1.00€"], "its own group: only itself")
        #expect(try Self.ranked(snapshot, ["aptcode": "E5"]) == ["100/E5/3.00€"], "not in the register: its own offers")
        #expect(try Self.ranked(snapshot, ["aptcode": "NOPE"]) == [])
        #expect(throws: ReadQuery.Invalid(reason: "radius needs latitude and longitude")) { try ReadQuery(["q": "eq", "aptcode": "E1", "radius": "5"]) }
        #expect(throws: ReadQuery.Invalid(reason: "packs is any or same, not \"all\"")) { try ReadQuery(["q": "eq", "aptcode": "E1", "packs": "all"]) }
    }

    @Test func aRegisterRowThatLosesAFieldJoinsTheGroupOnTheNextNight() throws {
        let (snapshot, temporary) = try Self.night(2)
        defer { _ = temporary }
        #expect(try Self.ranked(snapshot, Self.tallinn.merging(["aptcode": "E1"]) { $1 })
            == ["100/E3/1.00€", "300/E2/1.50€", "100/E2/1.80€", "200/E1/1.90€", "100/E1/2.00€"])
    }
}
