import Foundation
import IngestGenerator
import IngestPipeline
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestReadAPI

/// `?q=eq` ranks a group's packed offers per request (`EquivalentOffers`:
/// every tier's price kept beside the shelf price, the page's end found
/// with a heap). Checked against READ_API.md's rule written out plainly
/// over a generated world's tables: the group from the register rows
/// compared in Swift, every sold offer ranked and sorted whole, the first
/// `limit` taken; at every tier, at both pack rules, with and without a
/// radius, at limits that cut through ties.
@Suite struct EquivalentsOracleTests {
    struct Offer {
        var pharmacy: String
        var aptcode: String
        var priceCents: Int64
        var tierCents: [Int: Int64]
    }

    @Test func theRankingOfPackedOffersIsTheRuleWrittenOutPlainly() throws {
        let temporary = TemporaryDirectory()
        let truth = try FeedGenerator(options: .init(pharmacies: 30, items: 160, seed: 43, formats: [.rax, .noom, .csv], badRate: 0,
                                                     rulesSource: "\(RepositoryFiles.mappingsDirectory)/patient_price_rules.toml"))
            .generate(into: temporary.path)
        var options = ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/s",
                                    mappingsDirectory: "\(temporary.path)/mappings", parseThreads: 2)
        options.gates.maxRejectRatePercent = truth.maxRejectRatePercent
        let version = try #require(try ImportRun(options: options).run().publishedVersion)
        let path = SnapshotDirectory(path: "\(temporary.path)/s").snapshotPath(version)
        let snapshot = try OpenSnapshot(path: path, version: version)
        let database = try SnapshotQuery(path)

        // The tables as they are, NULL as nil.
        func norm(_ text: String?) -> String { (text ?? "").trimmingCharacters(in: .init(charactersIn: " ")).lowercased() }
        var register: [String: [String]] = [:] // package code: atc, strength, form, pack size, as SQL's lower(trim()) makes them
        var packSize: [String: String?] = [:]
        for row in database.rows("SELECT package_code, atc, strength, form, pack_size FROM medicine_register") {
            register[row[0]!] = row[1...4].map(norm)
            packSize[row[0]!] = row[4]
        }
        var packageOf: [String: String?] = [:]
        for row in database.rows("SELECT aptcode, package_code FROM items") { packageOf[row[0]!] = row[1] }
        var pharmacies: [String: (name: String, position: GeoPoint?)] = [:]
        for row in database.rows("SELECT id, name, latitude, longitude FROM pharmacies") {
            let position = row[2].flatMap(Double.init).flatMap { latitude in row[3].flatMap(Double.init).map { GeoPoint(latitude: latitude, longitude: $0) } }
            pharmacies[row[0]!] = (row[1]!, position)
        }
        let sold = database.rows("""
            SELECT pharmacy_id, aptcode, price_cents, price_50_cents, price_75_cents, price_90_cents, price_100_cents
            FROM offers WHERE quantity IS NULL OR quantity > 0
            """).map { row in
            Offer(pharmacy: row[0]!, aptcode: row[1]!, priceCents: Int64(row[2]!)!,
                  tierCents: Dictionary(uniqueKeysWithValues: zip([50, 75, 90, 100], row[3...6]).compactMap { tier, cents in cents.map { (tier, Int64($0)!) } }))
        }
        let byName = pharmacies.keys.sorted { (pharmacies[$0]!.name, $0) < (pharmacies[$1]!.name, $1) }
        let nameRank = Dictionary(uniqueKeysWithValues: byName.enumerated().map { ($1, $0) })
        let here = GeoPoint(latitude: 59.437, longitude: 24.754)

        /// READ_API.md's answer: `pi/i/p/pp[/pu]`, prices in cents.
        func expected(_ aptcode: String, tier: Int?, limit: Int, anyPack: Bool, radiusKm: Double?) -> [String] {
            func key(_ item: String) -> [String]? {
                guard let package = packageOf[item] ?? nil, let row = register[package], !row[0].isEmpty else { return nil }
                return anyPack ? Array(row[0..<3]) : row
            }
            let own = key(aptcode)
            // A package the register does not list is its own group, all one pack: ranked by its price.
            let perUnit = anyPack && own != nil
            let members = Set(packageOf.keys.filter { $0 == aptcode || (own != nil && key($0) == own) })
            func units(_ item: String) -> Double? { SnapshotReader.packUnits((packageOf[item] ?? nil).flatMap { packSize[$0] ?? nil }) }
            let ranked = sold.filter { members.contains($0.aptcode) && pharmacies[$0.pharmacy] != nil }.map { offer in
                let patient = tier.flatMap { offer.tierCents[$0] }
                let cents = patient ?? offer.priceCents
                let rank = perUnit ? units(offer.aptcode).map { Double(cents) / $0 } ?? .infinity : Double(cents)
                let metres = pharmacies[offer.pharmacy]!.position.map { here.metres(to: $0) }
                return (offer: offer, patient: patient, cents: cents, rank: rank, metres: metres)
            }.filter { radiusKm == nil || ($0.metres ?? .infinity) <= radiusKm! * 1000 }
            return ranked.sorted { l, r in
                if l.rank != r.rank { return l.rank < r.rank }
                if (l.metres ?? .infinity) != (r.metres ?? .infinity) { return (l.metres ?? .infinity) < (r.metres ?? .infinity) }
                if nameRank[l.offer.pharmacy]! != nameRank[r.offer.pharmacy]! { return nameRank[l.offer.pharmacy]! < nameRank[r.offer.pharmacy]! }
                return l.offer.aptcode < r.offer.aptcode
            }.prefix(limit).map { entry in
                var text = "\(entry.offer.pharmacy)/\(entry.offer.aptcode)/\(entry.offer.priceCents)/\(tier == nil ? "" : entry.patient.map(String.init) ?? "")"
                if anyPack {
                    text += "/" + (units(entry.offer.aptcode).map { String(Int64((Double(entry.cents) / $0).rounded(.toNearestOrAwayFromZero))) } ?? "")
                }
                return text
            }
        }

        func answered(_ parameters: [String: String]) throws -> [String] {
            let query = try ReadQuery(["q": "eq"].merging(parameters) { $1 })
            let fromFile = try ReadAPI.answer(query, from: snapshot)
            // Once read, the group is kept: the request's own thread gives the same bytes.
            #expect(try ReadAPI.answerFromMemory(query, of: snapshot) == fromFile, "\(parameters)")
            let body = try JSONSerialization.jsonObject(with: fromFile)
            func cents(_ text: String?) -> String { Int((text ?? "").filter(\.isNumber)).map(String.init) ?? "" }
            return try #require((body as? [String: [[String: String]]])?["equivalents"]).map { entry in
                "\(entry["pi"]!)/\(entry["i"]!)/\(cents(entry["p"]))/\(cents(entry["pp"]))" + (entry["pu"].map { "/" + cents($0) } ?? "")
            }
        }

        var random = SeededRandom(seed: 45)
        let aptcodes = Set(sold.map(\.aptcode)).sorted()
        var compared = 0, longer = 0, withPatient = 0, perUnit = 0, cutAtATie = 0
        for _ in 0..<1_200 {
            let aptcode = aptcodes[random.int(0...aptcodes.count - 1)]
            let tier = [nil, 50, 75, 90, 100][random.int(0...4)]
            let limit = [1, 2, 3, 5, 20, 500][random.int(0...5)]
            let anyPack = random.int(0...3) == 0
            let radius: Double? = random.int(0...3) == 0 ? [5, 50, 150][random.int(0...2)] : nil
            var parameters = ["aptcode": aptcode, "latitude": "59.437", "longitude": "24.754", "limit": String(limit)]
            if let tier { parameters["tier"] = String(tier) }
            if anyPack { parameters["packs"] = "any" }
            if let radius { parameters["radius"] = String(radius) }
            let want = expected(aptcode, tier: tier, limit: limit, anyPack: anyPack, radiusKm: radius)
            let got = try answered(parameters)
            #expect(got == want, "\(parameters)")
            compared += 1
            if want.count > 1 { longer += 1 }
            if want.contains(where: { !$0.split(separator: "/", omittingEmptySubsequences: false)[3].isEmpty }) { withPatient += 1 }
            if anyPack, !want.isEmpty { perUnit += 1 }
            // The page ends inside a run of equal ranks: the cut kept them all for distance to order.
            let all = expected(aptcode, tier: tier, limit: 10_000, anyPack: anyPack, radiusKm: radius)
            if want.count == limit, all.count > limit, all[limit - 1].split(separator: "/")[2] == all[limit].split(separator: "/")[2] { cutAtATie += 1 }
        }
        #expect(longer > 500 && withPatient > 100 && perUnit > 100 && cutAtATie > 10,
                "\(compared) compared: \(longer) with more than one offer, \(withPatient) with patient prices, \(perUnit) per unit, \(cutAtATie) cut at a tie")
    }
}
