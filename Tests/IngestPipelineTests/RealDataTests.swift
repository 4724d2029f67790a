import Foundation
@testable import IngestAdapters
import IngestCore
import IngestSnapshot
import IngestTestSupport
import IngestReadAPI
import Testing
@testable import IngestPipeline

/// Real public files (`../shared/realdata`, each folder's SOURCE.md gives
/// origin, licence and the figures asserted here), loaded through the right
/// adapter or a mapping as a run would. `make realdata` runs this suite with
/// INGEST_REALDATA set; `make test` skips it. The files are read in place:
/// where a file is not in a FEEDS.md format (WHO's ATC export, WHO's ICD-10
/// meta data, OpenStreetMap GeoJSON), it is turned into one here, as the
/// agency's export step would, and written in the shapes real tools write
/// (every field quoted, CRLF).
enum RealData {
    static let directory: String? = ProcessInfo.processInfo.environment["INGEST_REALDATA"].flatMap { $0.isEmpty ? nil : $0 }
    static func path(_ relative: String) -> String { "\(directory ?? "")/\(relative)" }
    static func bytes(_ relative: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path(relative)))) }

    /// A CSV field quoted as R's write.csv and pandas' QUOTE_ALL write it.
    static func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}

@Suite(.enabled(if: RealData.directory != nil, "set INGEST_REALDATA to ../shared/realdata (make realdata)"))
struct RealDataTests {
    /// A folder with the spec's example Noom feed (a run publishes only when some stock loads) and `files`.
    private func run(_ files: [String: [UInt8]], mappings: [String: String] = [:], maxRejectRate: Int? = 5,
                     asOf: String = "2024-05-20T06:00:00", currency: String = "EUR") throws -> (RunReport, SnapshotQuery, TemporaryDirectory) {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        let mappingsDirectory = temporary.subdirectory("mappings")
        try FileManager.default.copyItem(atPath: RepositoryFiles.feed("noom_5061_20240519.xml"), toPath: "\(feeds)/noom_5061_20240519.xml")
        for (name, bytes) in files { temporary.write("feeds/\(name)", bytes: bytes) }
        for (name, text) in mappings { temporary.write("mappings/\(name)", text: text) }
        let time = try #require(ExportTimestamp.parseISO8601(asOf))
        var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: "\(temporary.path)/snapshots",
                                    mappingsDirectory: mappingsDirectory, parseThreads: 2,
                                    asOf: Date(timeIntervalSince1970: TimeInterval(time.epochSeconds)))
        if let maxRejectRate { options.gates = QualityGates(maxRejectRatePercent: maxRejectRate) }
        options.currency = currency
        let report = try ImportRun(options: options).run()
        return (report, try SnapshotQuery("\(temporary.path)/snapshots/current"), temporary)
    }

    /// How the real lists are read: mapping files of their own in Tests/RealData.
    static func mapping(_ name: String) throws -> String {
        try String(contentsOfFile: "\(RepositoryFiles.root)/Tests/RealData/\(name)", encoding: .utf8)
    }

    private func feed(_ report: RunReport, _ file: String) throws -> FeedResult {
        try #require(report.feeds.first { $0.file == file }, "\(file) not in the report")
    }

    // MARK: ATC

    /// WHO's ATC index, one row per (code, DDD, route): its groups, each code once with its name, in file order.
    private func whoATCGroups() throws -> [(code: String, name: String)] {
        var names: [(code: String, name: String)] = []
        var seen = Set<String>()
        try DelimitedFileReader(delimiter: UInt8(ascii: ",")).read(try FeedFile.open(path: RealData.path("atc/WHO ATC-DDD 2026-04-25.csv"), name: "real")) { row in
            let fields = row.fields.map { String(decoding: $0, as: UTF8.self) }
            guard row.line > 1, seen.insert(fields[0]).inserted else { return }
            names.append((fields[0], fields[1]))
        }
        return names
    }

    @Test func whoATCIndexLoadsEveryGroupWithItsTree() throws {
        let names = try whoATCGroups()
        #expect(names.count == 6_996)
        let csv = "code;name\r\n" + names.map { RealData.quoted($0.code) + ";" + RealData.quoted($0.name) + "\r\n" }.joined()
        let (report, query, _) = try run(["atc_who.csv": Array(csv.utf8)])
        let atc = try feed(report, "atc_who.csv")
        #expect(atc.adapter == "atc" && atc.outcome == .loaded)
        #expect(atc.read == 6_996 && atc.accepted == 6_996 && atc.rejected == 0)
        #expect(query.int("SELECT count(*) FROM atc") == 6_996)
        #expect(query.rows("SELECT level, count(*) FROM atc GROUP BY level ORDER BY level").map { $0[0] ?? "" } == ["1", "2", "3", "4", "5"])
        #expect(query.int("SELECT count(*) FROM atc WHERE level = 1") == 14)
        #expect(query.value("SELECT name FROM atc WHERE code = 'A02BC01'") == "omeprazole")
        #expect(query.value("SELECT name FROM atc WHERE code = 'A01AA51'") == "sodium fluoride, combinations")
        // Tree counts: child_count is the number of rows naming the group as parent.
        #expect(query.int("SELECT count(*) FROM atc a WHERE child_count != (SELECT count(*) FROM atc c WHERE c.parent = a.code)") == 0)
        #expect(query.int("SELECT child_count FROM atc WHERE code = 'A'") == query.int("SELECT count(*) FROM atc WHERE parent = 'A'"))
        // The example feed's items: IBUMETIN (M01AE01) and DOXY-M (J01AA02).
        #expect(query.int("SELECT item_count FROM atc WHERE code = 'M01AE01'") == query.int("SELECT count(*) FROM items WHERE atc = 'M01AE01'"))
        #expect(query.int("SELECT item_count FROM atc WHERE code = 'M'") ?? 0 >= 1)
    }

    @Test func swissATCListKeepsItsGermanLetters() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(RealData.bytes("atc/wirkstoffe.json"))) as? [String: String])
        #expect(object.count == 2_681)
        let csv = "code;name\n" + object.keys.sorted().map { "\($0);\(RealData.quoted(object[$0]!))\n" }.joined()
        let (report, query, _) = try run(["atc_ch.csv": Array(csv.utf8)])
        let atc = try feed(report, "atc_ch.csv")
        // A group whose parent the list lacks is rejected, and counted.
        let orphans = object.keys.filter { code in
            guard let level = ATCAdapter.level(of: code), level > 1 else { return false }
            var parent = String(code.prefix(ATCAdapter.levelLengths[level - 2]))
            while true {
                guard object[parent] != nil else { return true }
                guard let parentLevel = ATCAdapter.level(of: parent), parentLevel > 1 else { return false }
                parent = String(parent.prefix(ATCAdapter.levelLengths[parentLevel - 2]))
            }
        }.count
        #expect(atc.read == 2_681 && atc.accepted == 2_681 - orphans)
        #expect(query.value("SELECT name FROM atc WHERE code = 'A'") == "Alimentäres System und Stoffwechsel")
        #expect(query.value("SELECT name FROM atc WHERE code = 'C'") == "Kardiovaskuläres System")
    }

    // MARK: ICD-10

    @Test func whoICD10MetaDataLoadsEveryCodeAndChecksTheListsDiagnoses() throws {
        // CODES.TXT: Windows-1252, `;`, CODE is field 7 (A00, A00.0), TITLE field 9.
        var rows: [(code: String, title: String)] = []
        try DelimitedFileReader(delimiter: UInt8(ascii: ";"), quote: 0, encoding: "windows-1252").read(try FeedFile.open(path: RealData.path("icd10/codes.txt"), name: "real")) { row in
            let fields = row.fields.map { String(decoding: $0, as: UTF8.self) }
            guard row.line > 1 else { return }
            rows.append((fields[6], fields[8]))
        }
        #expect(rows.count == 12_130)
        #expect(rows.filter { $0.code.count == 3 }.count == 2_048)
        #expect(rows.filter { $0.title.unicodeScalars.contains { $0.value > 0x7F } }.count == 11)
        let csv = "code;name\r\n" + rows.map { RealData.quoted($0.code) + ";" + RealData.quoted($0.title) + "\r\n" }.joined()
        let reimbursement = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.feed("reimbursement_2011-05-01.xml")))
        let (report, query, _) = try run(["icd10_who.csv": Array(csv.utf8), "reimbursement_2011-05-01.xml": Array(reimbursement)], asOf: "2024-05-20T06:00:00")
        let icd = try feed(report, "icd10_who.csv")
        #expect(icd.adapter == "icd10" && icd.accepted == 12_130 && icd.rejected == 0)
        #expect(query.int("SELECT count(*) FROM icd10") == 12_130)
        #expect(query.value("SELECT name FROM icd10 WHERE code = 'M35.0'")?.contains("Sjögren") == true)
        #expect(query.value("SELECT name FROM icd10 WHERE code = 'A00'") == "Cholera")
        // Every diagnosis code of the example list is a real ICD-10 code: no unknown_icd10 warning.
        #expect(report.warnings.filter { $0.code == .unknownICD10 }.isEmpty)
    }

    // MARK: Pharmacy registry from OpenStreetMap

    /// The GeoJSON wrapped in `var x = …;`, as a registry CSV written by R (every field quoted), and the ids.
    private func registry(fromOSM relative: String, region: String) throws -> (csv: String, ids: [String], unnamed: Int) {
        var text = String(decoding: try RealData.bytes(relative), as: UTF8.self)
        text = String(text[text.firstIndex(of: "{")!...text.lastIndex(of: "}")!])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let features = try #require(root["features"] as? [[String: Any]])
        var csv = ["id", "name", "chain_id", "region", "address", "phone", "open_hours", "latitude", "longitude"].map(RealData.quoted).joined(separator: ",") + "\r\n"
        var ids: [String] = []
        var unnamed = 0
        for feature in features {
            let properties = feature["properties"] as? [String: Any] ?? [:]
            let geometry = feature["geometry"] as? [String: Any] ?? [:]
            // A point, or the mean of a building outline's corners: [longitude, latitude].
            var points: [[Double]] = []
            if geometry["type"] as? String == "Point", let point = geometry["coordinates"] as? [Double] { points = [point] }
            if geometry["type"] as? String == "Polygon", let rings = geometry["coordinates"] as? [[[Double]]] { points = rings.first ?? [] }
            let longitude = points.map { $0[0] }.reduce(0, +) / Double(max(1, points.count))
            let latitude = points.map { $0[1] }.reduce(0, +) / Double(max(1, points.count))
            let id = String((feature["id"] as? String ?? "").split(separator: "/").last ?? "")
            ids.append(id)
            if properties["name"] == nil { unnamed += 1 }
            let street = [properties["addr:street"], properties["addr:housenumber"]].compactMap { $0 as? String }.joined(separator: " ")
            let address = [street, [properties["addr:postcode"], properties["addr:city"]].compactMap { $0 as? String }.joined(separator: " ")]
                .filter { !$0.isEmpty }.joined(separator: ", ")
            let fields = [id, properties["name"] as? String ?? "", "", region, address, properties["phone"] as? String ?? "",
                          properties["opening_hours"] as? String ?? "", String(format: "%.7f", latitude), String(format: "%.7f", longitude)]
            csv += fields.map(RealData.quoted).joined(separator: ",") + "\r\n"
        }
        return (csv, ids, unnamed)
    }

    /// One RAX export per pharmacy: the registry shows in `pharmacies` only for pharmacies with stock.
    private func stock(for ids: [String]) -> [String: [UInt8]] {
        var feeds: [String: [UInt8]] = [:]
        for id in ids {
            var feed = RAXFeedBuilder(pharmacyID: id, exportedAt: "20240519T2305")
            feed.item("OSM1")
            feeds["rax_\(id).txt"] = feed.bytes
        }
        return feeds
    }

    @Test func openStreetMapPharmaciesOfTartuLoadAsAQuotedRegistry() throws {
        let (csv, ids, unnamed) = try registry(fromOSM: "registry-osm/tartu_pharmacy.js", region: "TARTU")
        #expect(ids.count == 24 && unnamed == 0)
        var files = stock(for: ids)
        files["pharmacies_tartu.csv"] = Array(csv.utf8)
        let (report, query, _) = try run(files)
        let registry = try feed(report, "pharmacies_tartu.csv")
        #expect(registry.adapter == "pharmacy-registry" && registry.accepted == 24 && registry.rejected == 0)
        #expect(query.int("SELECT count(*) FROM pharmacies WHERE region = 'TARTU'") == 24)
        #expect(query.int("SELECT count(*) FROM pharmacies WHERE name LIKE '%Lõunakeskuse%'") ?? 0 >= 1)
        #expect(query.value("SELECT name FROM pharmacies WHERE id = '322920315'") == "Raja Apteek")
        #expect(query.value("SELECT open_hours FROM pharmacies WHERE id = '322920315'") == "Mo-Th 08:00-17:30; Fr 08:00-16:00")
        #expect(query.value("SELECT latitude FROM pharmacies WHERE id = '322920315'") == "58.3630891")
    }

    @Test func openStreetMapPharmaciesOfSalzburgKeepTheirLettersAndRejectTheUnnamed() throws {
        let (csv, ids, unnamed) = try registry(fromOSM: "registry-osm/salzburg_Pharmacy.js", region: "SALZBURG")
        #expect(ids.count == 35 && unnamed == 1)
        var files = stock(for: ids)
        files["pharmacies_salzburg.csv"] = Array(csv.utf8)
        let (report, query, _) = try run(files)
        let registry = try feed(report, "pharmacies_salzburg.csv")
        #expect(registry.read == 35 && registry.accepted == 34 && registry.rejectsByReason == [.missingField: 1])
        #expect(query.int("SELECT count(*) FROM pharmacies WHERE region = 'SALZBURG'") == 34)
        #expect(query.int("SELECT count(*) FROM pharmacies WHERE address LIKE '%Münchner Bundesstraße%' OR address LIKE '%Kleßheimer Allee%'") ?? 0 >= 1)
        #expect(query.int("SELECT count(*) FROM pharmacies WHERE name = '\"Zum Hl. Petrus\"' OR name LIKE '%Zum Hl. Petrus%'") == 1)
    }

    // MARK: The read API over a snapshot of real files

    /// Tartu's and Salzburg's pharmacies from OpenStreetMap and WHO's ATC
    /// index in one snapshot, read as the apps read it (`IngestReadAPI`):
    /// every pharmacy once, its letters intact, nearest first from a point in
    /// Tartu, its position as the registry gave it; the ATC tree's top level
    /// and one group's children as the index names them.
    @Test func theReadAPIAnswersFromASnapshotOfRealFiles() throws {
        let tartu = try registry(fromOSM: "registry-osm/tartu_pharmacy.js", region: "TARTU")
        let salzburg = try registry(fromOSM: "registry-osm/salzburg_Pharmacy.js", region: "SALZBURG")
        let names = try whoATCGroups()
        var files = stock(for: tartu.ids + salzburg.ids)
        files["pharmacies_tartu.csv"] = Array(tartu.csv.utf8)
        files["pharmacies_salzburg.csv"] = Array(salzburg.csv.utf8)
        files["atc_who.csv"] = Array(("code;name\r\n" + names.map { RealData.quoted($0.code) + ";" + RealData.quoted($0.name) + "\r\n" }.joined()).utf8)
        let (_, query, temporary) = try run(files)
        let snapshot = try OpenSnapshot(path: "\(temporary.path)/snapshots/current", version: "real")

        // q=p from Tartu's town hall square: regions by name, every pharmacy once, nearest first.
        let answer = try #require(try JSONSerialization.jsonObject(with: ReadAPI.answer(
            try ReadQuery(["q": "p", "latitude": "58.3804", "longitude": "26.7225"]), from: snapshot)) as? [String: Any])
        let regions = try #require(answer["regions"] as? [[String: Any]])
        #expect(regions.map { $0["n"] as? String ?? "?" } == query.rows("SELECT DISTINCT region FROM pharmacies ORDER BY region").map { $0[0] ?? "" })
        let listed = regions.flatMap { $0["p"] as? [[String: String]] ?? [] }
        #expect(listed.map { $0["i"] ?? "" }.sorted() == query.rows("SELECT id FROM pharmacies ORDER BY id").map { $0[0] ?? "" })
        for pharmacy in listed {
            let row = query.rows("SELECT name, address, open_hours, latitude, longitude FROM pharmacies WHERE id = '\(pharmacy["i"] ?? "")'").first
            // An empty field is NULL in the snapshot and "" in the answer.
            #expect(row.map { [$0[0] ?? "", $0[1] ?? "", $0[2] ?? ""] } == [pharmacy["n"] ?? "?", pharmacy["a"] ?? "?", pharmacy["o"] ?? "?"])
            if let latitude = row?[3] ?? nil, let longitude = row?[4] ?? nil {
                #expect(pharmacy["l"] == String(format: "%.7f,%.7f", Double(latitude) ?? 0, Double(longitude) ?? 0))
            }
        }
        let inTartu = (regions.first { $0["n"] as? String == "TARTU" }?["p"] as? [[String: String]]) ?? []
        let metres = inTartu.map { entry -> Double in
            let shown = entry["di"] ?? ""
            return shown.hasSuffix(" km") ? (Double(shown.dropLast(3)) ?? 0) * 1000 : Double(shown.dropLast(2)) ?? .infinity
        }
        #expect(inTartu.count == 24 && metres == metres.sorted() && (metres.first ?? .infinity) < 1000)
        let inSalzburg = (regions.first { $0["n"] as? String == "SALZBURG" }?["p"] as? [[String: String]]) ?? []
        #expect(inSalzburg.count == 34 && inSalzburg.allSatisfy { $0["di"]?.hasSuffix(" km") == true })
        #expect(inSalzburg.contains { $0["a"]?.contains("Münchner Bundesstraße") == true || $0["a"]?.contains("Kleßheimer Allee") == true })

        // q=a: WHO's 14 anatomical groups, then A's children, with the index's names.
        let top = try #require(try JSONSerialization.jsonObject(with: ReadAPI.answer(try ReadQuery(["q": "a"]), from: snapshot)) as? [String: [[String: String]]])
        let byCode = Dictionary(names.map { ($0.code, $0.name) }, uniquingKeysWith: { first, _ in first })
        #expect(top["atc"]?.count == 14 && top["atc"]?.allSatisfy { byCode[$0["a"] ?? ""] == $0["n"] } == true)
        let a = try #require(try JSONSerialization.jsonObject(with: ReadAPI.answer(try ReadQuery(["q": "a", "atc": "A"]), from: snapshot)) as? [String: [[String: String]]])
        #expect(a["atc"]?.map { $0["a"] ?? "" } == names.map(\.code).filter { $0.count == 3 && $0.hasPrefix("A") }.sorted())
    }

    // MARK: A national medicines list, by mapping


    @Test func theFrenchMedicinesListLoadsAsAPriceListWithItsQuotesAndLetters() throws {
        let raw = try RealData.bytes("bdpm/CIS_CIP_bdpm_subset.txt")
        let lines = raw.split(separator: 10, omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count == 2_467)
        // Independent figures: the price field (10) empty, or with a thousands separator (two commas).
        let prices = lines.map { line -> [UInt8] in
            let fields = line.split(separator: 9, omittingEmptySubsequences: false)
            return fields.count > 9 ? Array(fields[9]) : []
        }
        let noPrice = prices.filter(\.isEmpty).count
        let thousands = prices.filter { $0.filter { $0 == UInt8(ascii: ",") }.count > 1 }.count
        #expect(thousands == 296)
        let (report, query, _) = try run(["CIS_CIP_bdpm_subset.txt": raw], mappings: ["bdpm.mapping.toml": try Self.mapping("bdpm.mapping.toml")], maxRejectRate: 100)
        let list = try feed(report, "CIS_CIP_bdpm_subset.txt")
        #expect(list.outcome == .loaded && list.read == 2_467)
        #expect(list.sha256 == (try FileDigest.sha256(path: RealData.path("bdpm/CIS_CIP_bdpm_subset.txt"))),
                "the digest taken from the parse's own pass is the file's")
        // An empty price is missing (FEEDS.md §12: missing_price), a thousands separator is no decimal number.
        #expect(list.rejectsByReason == [.missingPrice: noPrice, .badPrice: thousands])
        #expect(list.accepted == 2_467 - noPrice - thousands)
        #expect(list.message?.contains("stock not reported") == true)
        #expect(query.int("SELECT count(*) FROM offers WHERE pharmacy_id = 'FR-BDPM' AND quantity IS NULL") == list.accepted)
        // A quote inside an unquoted field is data; a right single quote (0x92) is ’.
        #expect(query.int("SELECT count(*) FROM items WHERE name LIKE '%\"%'") ?? 0 > 0)
        let rightQuotes = Set(lines.compactMap { line -> ArraySlice<UInt8>? in
            let fields = line.split(separator: 9, omittingEmptySubsequences: false)
            let price = fields.count > 9 ? Array(fields[9]) : []
            let accepted = !price.isEmpty && price.filter { $0 == UInt8(ascii: ",") }.count <= 1
            return accepted && fields[2].contains(0x92) ? fields[1] : nil
        }).count
        #expect(rightQuotes == 62)
        #expect(query.int("SELECT count(*) FROM items WHERE name LIKE '%’%'") == rightQuotes)
        #expect(query.int("SELECT count(*) FROM items WHERE gtin IS NULL AND aptcode IN (SELECT aptcode FROM offers WHERE pharmacy_id = 'FR-BDPM')") == 0)
        #expect(query.int("SELECT count(*) FROM items WHERE name != trim(name)") == 0)
    }

    // MARK: A reimbursement list in XML, by mapping with paths up to the product


    @Test func theSwissListLoadsPackByPackWithItsProductsNames() throws {
        let (report, query, _) = try run(["Preparations.xml": try RealData.bytes("xml-swiss-sl/Preparations.xml")],
                                         mappings: ["sl.mapping.toml": try Self.mapping("swiss-sl.mapping.toml")])
        let list = try feed(report, "Preparations.xml")
        #expect(list.outcome == .loaded && list.read == 31)
        #expect(list.sha256 == (try FileDigest.sha256(path: RealData.path("xml-swiss-sl/Preparations.xml"))))
        #expect(list.accepted == 30 && list.rejectsByReason == [.missingPrice: 1])
        #expect(list.exportedAt?.hasPrefix("2013-12-01") == true)
        #expect(query.rows("SELECT i.name, i.atc, i.gtin, o.price_cents, o.quantity FROM offers o JOIN items i USING (aptcode) WHERE aptcode = '14418'").first
                == ["Varilrix", "J07BK01", "07680005850010", "6650", nil])
        #expect(query.value("SELECT producer FROM items WHERE aptcode = '14418'") == "GlaxoSmithKline AG")
        // Three packs have an empty <GTIN />; one of them (28200) has no public price and is rejected.
        #expect(query.int("SELECT count(*) FROM items WHERE aptcode IN (SELECT aptcode FROM offers WHERE pharmacy_id = 'CH-SL') AND gtin IS NULL") == 2)
        #expect(report.rejects.first { $0.reason == .missingPrice }?.key == "28200")
        #expect(query.int("SELECT count(DISTINCT name) FROM items WHERE aptcode IN (SELECT aptcode FROM offers WHERE pharmacy_id = 'CH-SL')") ?? 0 <= 23)
    }

    // MARK: The world's exports (FEEDS.md §12)

    /// WALA's Excel export with its header as written (`Bezeichnung ` with its
    /// space), in a CHF snapshot: every priced pack exact (the sum is Python's
    /// csv module's), the 24 unpriced ones `missing_price` under the mapping's
    /// own 10 % limit, the 52 names typed with a line break at their end
    /// trimmed, the euro example feed refused `wrong_currency`.
    @Test func walaPriceListWithItsHeaderAsWritten() throws {
        let (report, query, temporary) = try run(["wala_arzneimittel.csv": try RealData.bytes("wala-pricelist/wala_arzneimittel.csv")],
                                                 mappings: ["wala.mapping.toml": try Self.mapping("wala.mapping.toml")],
                                                 maxRejectRate: nil, asOf: "2026-06-12T06:00:00", currency: "CHF")
        let list = try feed(report, "wala_arzneimittel.csv")
        #expect(list.outcome == .loaded && list.read == 344 && list.accepted == 320 && list.rejectsByReason == [.missingPrice: 24])
        #expect(try feed(report, "noom_5061_20240519.xml").reason == "wrong_currency")
        #expect(query.rows("SELECT count(*), sum(price_cents) FROM offers WHERE pharmacy_id = 'WALA'") == [["320", "793590"]])
        #expect(query.rows("SELECT value FROM meta WHERE key = 'currency'") == [["CHF"]])
        #expect(query.rows("SELECT i.name, i.gtin, o.price_cents FROM offers o JOIN items i USING (aptcode) WHERE aptcode = '4926585'")
                == [["Adonis/Scilla comp.", "07640187361322", "1655"]])
        #expect(query.int("SELECT count(*) FROM items WHERE name LIKE '%' || char(10) || '%'") == 0)
        #expect(query.value("SELECT price_cents FROM offers WHERE aptcode = '4227315'") == "3900")
        let snapshot = try OpenSnapshot(path: "\(temporary.path)/snapshots/current", version: "current")
        let body = String(decoding: try ReadAPI.answer(try ReadQuery(["q": "ip", "aptcode": "4926585"]), from: snapshot), as: UTF8.self)
        #expect(body.contains(#""p":"CHF 16.55""#), "\(body)")
    }

    /// dm+d's AMPP file as published, in a GBP snapshot: 26 prices in pence,
    /// 14 of them 0 ("no price": `missing_price`, never 0.00), the other 12
    /// exact (Python's ElementTree sums them to 16,795 pence), and the read
    /// API answers in pounds.
    @Test func dmdPricesInPenceAnswerInPounds() throws {
        let (report, query, temporary) = try run(["f_ampp2_3010419.xml": try RealData.bytes("dmd-ampp/f_ampp2_3010419.xml")],
                                                 mappings: ["dmd.mapping.toml": try Self.mapping("dmd-ampp.mapping.toml")],
                                                 maxRejectRate: nil, currency: "GBP")
        let list = try feed(report, "f_ampp2_3010419.xml")
        #expect(list.outcome == .loaded && list.read == 26 && list.accepted == 12 && list.rejectsByReason == [.missingPrice: 14])
        #expect(query.rows("SELECT count(*), sum(price_cents) FROM offers WHERE pharmacy_id = 'NHS-DMD'") == [["12", "16795"]])
        #expect(query.value("SELECT price_cents FROM offers WHERE aptcode = '1714711000001106'") == "485")
        let snapshot = try OpenSnapshot(path: "\(temporary.path)/snapshots/current", version: "current")
        let body = String(decoding: try ReadAPI.answer(try ReadQuery(["q": "ip", "aptcode": "1714711000001106"]), from: snapshot), as: UTF8.self)
        #expect(body.contains(#""p":"£4.85""#), "\(body)")
        let details = String(decoding: try ReadAPI.answer(try ReadQuery(["q": "id", "aptcode": "1714911000001108", "client_id": "NHS-DMD"]), from: snapshot), as: UTF8.self)
        #expect(details.contains(#""price":"£9.47""#), "\(details)")
    }

    /// The NHS list of Greater Manchester's pharmacies (GeoJSON) as the
    /// registry, by a mapping with `kind = "registry"`: all 631 read; a GBP
    /// stock feed of one of them takes its name, borough and coordinates.
    @Test func nhsPharmaciesAsARegistryMapping() throws {
        let stock = "APPID,NM,PRICE\n1714711000001106,Nutrison liquid 500 ml,485\n"
        let (report, query, _) = try run(["gm_pharmacies.geojson": try RealData.bytes("nhs-pharmacies-gm/gm_pharmacies.geojson"),
                                          "uk_FM664_2024-05-19.csv": Array(stock.utf8)],
                                         mappings: ["nhs.mapping.toml": try Self.mapping("nhs-registry.mapping.toml"), "uk.mapping.toml": try Self.mapping("uk-stock.mapping.toml")],
                                         currency: "GBP")
        let registry = try feed(report, "gm_pharmacies.geojson")
        #expect(registry.kind == "pharmacy_registry" && registry.adapter == "mapping:nhs")
        #expect(registry.outcome == .loaded && registry.read == 631 && registry.accepted == 631)
        #expect(try feed(report, "uk_FM664_2024-05-19.csv").outcome == .loaded)
        #expect(query.rows("SELECT name, region, address, latitude, longitude, open_hours FROM pharmacies WHERE id = 'FM664'")
                == [["A1 Pharmacy", "Bolton", "491 Radcliffe Road, Darcy Lever, Bolton BL3 1SX", "53.570812", "-2.394879", "08:30-13:00,14:00-17:30"]])
    }

    // MARK: The RFC 4180 suite and GTIN vectors

    /// csv-spectrum's files but two: `null` (its unquoted NULL meaning an empty field is a convention of
    /// its own; FEEDS.md has none, and the importer keeps the text) and `location_coordinates` (its JSON
    /// gives another phone number than its CSV holds). The `_crlf` files are stored with LF and checked
    /// out with CRLF by the repository's .gitattributes, also inside quoted fields: done here.
    /// `latin1.csv` is ISO-8859-1 (its JSON is UTF-8).
    @Test(arguments: ["comma_in_quotes", "empty", "empty_crlf", "escaped_quotes", "json", "latin1",
                      "newlines", "newlines_cr", "newlines_crlf", "quotes_and_newlines", "simple", "simple_crlf", "utf8"])
    func csvSpectrumReadsAsItsJSONSays(name: String) throws {
        let latin1 = name == "latin1"
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(RealData.bytes("csv-spectrum/\(name).json"))) as? [[String: String]])
        var csv = try RealData.bytes("csv-spectrum/\(name).csv")
        if name.hasSuffix("_crlf") { csv = Array(String(decoding: csv, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8) }
        let temporary = TemporaryDirectory()
        var rows: [[String]] = []
        try DelimitedFileReader(encoding: latin1 ? "ISO-8859-1" : nil).read(try FeedFile.open(path: temporary.write("\(name).csv", bytes: csv), name: "real")) { row in
            rows.append(row.fields.map { String(decoding: $0, as: UTF8.self) })
        }
        let header = try #require(rows.first)
        let objects = rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
        #expect(objects == expected, "\(name)")
    }

    @Test func gtinCheckDigitsAgreeWithPythonStdnum() throws {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(RealData.bytes("gtin-stdnum/vectors.json"))) as? [String: Any])
        let vectors = try #require(root["vectors"] as? [[String: String]])
        var verdicts: [String: Int] = [:]
        for vector in vectors {
            let number = vector["number"] ?? ""
            let verdict = vector["verdict"] ?? ""
            verdicts[verdict, default: 0] += 1
            switch GTIN.normalize(number) {
            case .success: #expect(verdict == "valid", "\(number) (\(vector["source"] ?? ""))")
            case .failure(.badCheckDigit): #expect(verdict == "checksum", "\(number) (\(vector["source"] ?? ""))")
            case .failure(.badShape): #expect(["length", "format"].contains(verdict), "\(number) (\(vector["source"] ?? ""))")
            }
        }
        // SOURCE.md: 206 distinct numbers, 198 valid, 4 with a wrong check digit, 4 not 8/12/13/14 ASCII digits.
        #expect(Set(vectors.compactMap { $0["number"] }).count == 206)
        #expect(verdicts["valid"] ?? 0 >= 198)
    }
}
