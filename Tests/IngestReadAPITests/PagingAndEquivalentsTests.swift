import Foundation
import IngestReadAPI
import IngestSnapshot
import IngestTestSupport
import Testing

/// READ_API.md, Version 2: `limit`, `offset`, `total` and `next` on every
/// list, and `?q=eq`, the cheapest equivalent nearby.
@Suite struct PagingAndEquivalentsTests {
    /// `q=i` pages through the merged list: exact code matches and word matches, by name.
    @Test func itemSearchPagesWithTotalAndNext() throws {
        func page(_ extra: [String: String]) throws -> (codes: [String], total: String?, next: String?) {
            let parameters = ["q": "i", "atc": "M01AE01"].merging(extra) { $1 }
            let codes = try SampleSnapshot.lists(parameters)?["items"]?.map { $0["a"] ?? "" } ?? []
            let paging = try SampleSnapshot.paging(parameters)
            return (codes, paging.total, paging.next)
        }
        // The three ibuprofen items by name: MM0034978 (N10), MM0034371 (N30), then IBUPROFEN 200MG.
        let all = try page([:])
        #expect(all.codes.count == 3 && all.total == "3" && all.next == nil)
        #expect(try page(["limit": "2"]) == (Array(all.codes.prefix(2)), "3", "2"))
        #expect(try page(["limit": "2", "offset": "2"]) == ([all.codes[2]], "3", nil))
        #expect(try page(["offset": "7"]) == ([], "3", nil), "past the end: an empty page")
        #expect(try page(["limit": "100000"]) == (all.codes, "3", nil), "a limit over 500 is clamped")
        // An exact code that the words also find is counted once; one they do not find adds to the total.
        let scanned = try SampleSnapshot.paging(["q": "i", "search": "ibumetin"])
        let both = try SampleSnapshot.paging(["q": "i", "search": "mm0034978"])
        #expect(scanned.total == "2" && both.total == "1")
    }

    /// `q=p` and `q=ip`: pages count pharmacies in answer order across
    /// groups, and each page forms its groups from its own pharmacies.
    @Test func groupedAnswersPageAcrossGroups() throws {
        func flat(_ parameters: [String: String], key: String) throws -> [String] {
            try (SampleSnapshot.groups(parameters)?[key] ?? []).flatMap { group in
                (group["p"] as? [[String: String]] ?? []).map { "\(group["n"] as? String ?? "")/\($0["pi"] ?? $0["i"] ?? "")" }
            }
        }
        let every = try flat(["q": "p"], key: "regions")
        #expect(every == ["RĪGA/7001", "TALLINN/5060", "TALLINN/31937", "TARTU/5061"])
        #expect(try SampleSnapshot.paging(["q": "p"]) == ("4", nil), "all pharmacies by default")
        #expect(try flat(["q": "p", "limit": "2", "offset": "1"], key: "regions") == ["TALLINN/5060", "TALLINN/31937"])
        #expect(try SampleSnapshot.paging(["q": "p", "limit": "2", "offset": "1"]) == ("4", "3"))
        #expect(try flat(["q": "p", "limit": "2", "offset": "2"], key: "regions") == ["TALLINN/31937", "TARTU/5061"])
        let regions = try SampleSnapshot.groups(["q": "p", "limit": "2", "offset": "2"])?["regions"]?.map { $0["n"] as? String ?? "" }
        #expect(regions == ["TALLINN", "TARTU"])
        // Near Selma: the nearest one, then the next; `limit` above 50 is clamped for the nearest.
        let near = ["q": "ip", "aptcode": "MM0007145", "latitude": "59.4137", "longitude": "24.6856", "onlyNearest": "1"]
        #expect(try flat(near.merging(["limit": "1"]) { $1 }, key: "item_pharmacies") == ["Nearest/31937"])
        #expect(try SampleSnapshot.paging(near.merging(["limit": "1"]) { $1 }) == ("3", "1"))
        #expect(try flat(near.merging(["limit": "1", "offset": "1"]) { $1 }, key: "item_pharmacies") == ["Nearest/5060"])
        #expect(try flat(near.merging(["limit": "900"]) { $1 }, key: "item_pharmacies") == ["Nearest/31937", "Nearest/5060", "Nearest/5061"])
    }

    /// A snapshot of the sample feeds whose register calls IBUMETIN N30
    /// the same as N10 (written in other case and with spaces).
    final class Equivalents: @unchecked Sendable {
        static let shared = Equivalents()
        let temporary: TemporaryDirectory
        let open: Result<OpenSnapshot, any Error>

        private init() {
            let temporary = TemporaryDirectory()
            self.temporary = temporary
            let feeds = "\(temporary.path)/feeds"
            open = Result {
                try FileManager.default.copyItem(atPath: RepositoryFiles.feedsDirectory, toPath: feeds)
                let register = "\(feeds)/medicine_register_2011-05-01.csv"
                let text = try String(contentsOfFile: register, encoding: .utf8).replacingOccurrences(
                    of: "1012352;IBUMETIN;tablett;400mg;30;M01AE01;", with: "1012352;IBUMETIN; Tablett ;400MG;10 ;m01ae01;")
                try text.write(toFile: register, atomically: true, encoding: .utf8)
                let directory = SnapshotDirectory(path: "\(temporary.path)/snapshots")
                let run = try CommandRunner.ingest(["--feeds", feeds, "--mappings", RepositoryFiles.mappingsDirectory, "--snapshots", directory.path])
                guard run.status == 0, let version = directory.currentVersion() else { throw CocoaError(.fileReadUnknown) }
                return try OpenSnapshot(path: directory.snapshotPath(version), version: version)
            }
        }

        static func answer(_ parameters: [String: String]) throws -> [[String: String]] {
            let body = try ReadAPI.answer(try ReadQuery(parameters), from: try shared.open.get(), context: SampleSnapshot.wednesdayNoon)
            return try #require((try JSONSerialization.jsonObject(with: body) as? [String: [[String: String]]])?["equivalents"])
        }
    }

    /// Offers of MM0034978 (IBUMETIN N10) and MM0034371 (N30, an equivalent here):
    /// 5060 N30 8.30 (no 50 % tier, 75 %: 3.90); 31937 N10 3.79 (2.57 at 75 %);
    /// 5060 N10 3.71 (3.71, 2.49); 5061 N10 3.71 (3.51, 3.41).
    @Test func equivalentsAreRankedByThePatientsPriceThenDistance() throws {
        let selma = ["q": "eq", "aptcode": "mm0034978", "latitude": "59.4137", "longitude": "24.6856"]
        func ranked(_ extra: [String: String]) throws -> [String] {
            try Equivalents.answer(selma.merging(extra) { $1 }).map { "\($0["pi"] ?? "")/\($0["i"] ?? "")/\($0["p"] ?? "")/\($0["pp"] ?? "")" }
        }
        // Shelf price, then distance: 5060 (Tallinn) before 5061 (Tartu) at 3.71.
        #expect(try ranked([:]) == ["5060/MM0034978/3.71€/", "5061/MM0034978/3.71€/", "31937/MM0034978/3.79€/", "5060/MM0034371/8.30€/"])
        #expect(try ranked(["tier": "75"]) == ["5060/MM0034978/3.71€/2.49€", "31937/MM0034978/3.79€/2.57€", "5061/MM0034978/3.71€/3.41€",
                                               "5060/MM0034371/8.30€/3.90€"])
        // N30 has no 50 % tier: ranked by its shelf price, its `pp` empty.
        #expect(try ranked(["tier": "50"]) == ["5061/MM0034978/3.71€/3.51€", "5060/MM0034978/3.71€/3.71€", "31937/MM0034978/3.79€/3.79€",
                                               "5060/MM0034371/8.30€/"])
        #expect(try ranked(["limit": "2"]).count == 2)
        // Every limit is the head of the whole ranking, ties at the cut included:
        // without a tier 5060 and 5061 both rank 3.71, and `limit=1` must still
        // weigh both to give the nearer one.
        for tier in [[:], ["tier": "50"], ["tier": "75"], ["tier": "90"], ["tier": "100"]] {
            let whole = try ranked(tier)
            for limit in 1...whole.count {
                #expect(try ranked(tier.merging(["limit": String(limit)]) { $1 }) == Array(whole.prefix(limit)), "\(tier) limit \(limit)")
            }
        }
        #expect(try ranked(["limit": "1"]) == ["5060/MM0034978/3.71€/"])
        #expect(try ranked(["limit": "1", "latitude": "58.38", "longitude": "26.72"]) == ["5061/MM0034978/3.71€/"], "from Tartu, 5061 is nearer")
        let first = try #require(try Equivalents.answer(selma).first)
        #expect(first == ["i": "MM0034978", "n": "IBUMETIN TBL 400MG N10", "pi": "5060", "pn": "AASA APTEEK", "p": "3.71€", "pp": "",
                          "d": "30.12.2010", "s": "0", "on": "1", "oh": "10:00-21:00", "di": first["di"] ?? "-"])
        #expect(first["di"]?.hasSuffix(" km") == true)
        // From N30 the same set; a package the register does not list is the same as itself alone (Version 3); an unknown code has none.
        #expect(Set(try Equivalents.answer(["q": "eq", "aptcode": "MM0034371"]).map { $0["pi"]! + $0["i"]! }) == Set(try ranked([:]).map {
            let parts = $0.split(separator: "/"); return String(parts[0] + parts[1])
        }))
        let unlisted = try Equivalents.answer(["q": "eq", "aptcode": "MM0200001"]).map { "\($0["pi"] ?? "")/\($0["i"] ?? "")/\($0["p"] ?? "")" }
        #expect(unlisted == ["31937/MM0200001/4.50€"])
        #expect(try Equivalents.answer(["q": "eq", "aptcode": "NOPE"]) == [])
        // Without a position, no distances: `di` is empty.
        let unplaced = try Equivalents.answer(["q": "eq", "aptcode": "MM0034978"])
        #expect(unplaced.count == (try ranked([:])).count && unplaced.count >= 2, "an empty answer would hold no distance either")
        #expect(unplaced.allSatisfy { $0["di"] == "" })
    }

    /// In the sample, ÜLIKOOLI (5061) has DOXY-M with quantity 0: not sold,
    /// not listed. AASA and SELMA both ask 2.37 €; without a position the
    /// pharmacy's name decides.
    @Test func equivalentsLeaveOutPharmaciesWithoutStock() throws {
        let doxy = try SampleSnapshot.snapshot()
        let body = try ReadAPI.answer(try ReadQuery(["q": "eq", "aptcode": "MM0007145"]), from: doxy)
        let answer = try #require((try JSONSerialization.jsonObject(with: body) as? [String: [[String: String]]])?["equivalents"])
        #expect(answer.map { $0["pi"] ?? "" } == ["5060", "31937"])
    }
}
