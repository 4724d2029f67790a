import Foundation
import IngestGenerator
import IngestPipeline
import IngestSnapshot
import IngestTestSupport
import Testing

@Suite struct GeneratorTests {
    private func options(pharmacies: Int = 14, items: Int = 120, seed: UInt64 = 42, badRate: Double = 0) -> FeedGenerator.Options {
        FeedGenerator.Options(pharmacies: pharmacies, items: items, seed: seed, badRate: badRate,
                              rulesSource: "\(RepositoryFiles.mappingsDirectory)/patient_price_rules.toml")
    }

    /// Every file of the folder, name → bytes.
    private func contents(_ directory: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            result[name] = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name)"))
        }
        return result
    }

    /// Every input of the manifest against the ground truth: a file's line,
    /// or each pharmacy's line of a chain file (`GroundTruth.key`).
    private func expectManifest(_ manifest: Manifest, matches truth: GroundTruth) throws {
        var inputs: [String: Manifest.Input] = [:]
        for input in manifest.inputs {
            let chainKey = input.pharmacyId.map { GroundTruth.key(file: input.file, pharmacyID: $0) }
            let key = chainKey.flatMap { truth.feeds[$0] != nil ? $0 : nil } ?? input.file
            #expect(inputs[key] == nil, "\(key) twice in the manifest")
            inputs[key] = input
        }
        #expect(Set(inputs.keys) == Set(truth.feeds.keys))
        for (file, expected) in truth.feeds.sorted(by: { $0.key < $1.key }) {
            let input = try #require(inputs[file], "\(file) missing from the manifest")
            #expect(input.read == expected.read, "\(file) read")
            #expect(input.accepted == expected.accepted, "\(file) accepted")
            #expect(input.rejected == expected.rejected, "\(file) rejected")
            #expect(input.rejectsByReason == expected.rejectsByReason, "\(file) reasons")
            #expect(input.outcome == expected.outcome, "\(file) outcome")
        }
    }

    @Test func theImportMatchesTheGroundTruthForEveryReasonAndFeed() throws {
        let temporary = TemporaryDirectory()
        let truth = try FeedGenerator(options: options(badRate: 0.03)).generate(into: temporary.path)
        let run = ImportRun(options: ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/snapshots",
                                                   mappingsDirectory: "\(temporary.path)/mappings", parseThreads: 2))
        let report = try run.run()
        let manifest = try SnapshotDirectory(path: "\(temporary.path)/snapshots").readManifest(try #require(report.publishedVersion))
        try expectManifest(manifest, matches: truth)
        // Every reason the spec names shows up at least once.
        let reasons = Set(truth.feeds.values.flatMap(\.rejectsByReason.keys))
        for reason in ["trailer_mismatch", "unsupported_version", "summary_mismatch", "malformed_xml", "bad_price", "bad_quantity",
                       "bad_package_code", "bad_gtin_check_digit", "bad_coordinates", "bad_diagnosis", "bad_header"] {
            #expect(reasons.contains(reason), "no \(reason) generated")
        }
        #expect(truth.feeds.values.contains { $0.outcome == "rejected" && $0.read == 0 }) // the unsafe_xml feed
    }

    @Test func chainFilesMatchTheGroundTruthPharmacyByPharmacy() throws {
        let temporary = TemporaryDirectory()
        var chained = options(pharmacies: 11, items: 80, badRate: 0.03)
        chained.formats = [.noom, .chain]
        chained.pharmaciesPerChainFile = 3
        let truth = try FeedGenerator(options: chained).generate(into: temporary.path)
        let chainFiles = try FileManager.default.contentsOfDirectory(atPath: "\(temporary.path)/feeds").filter { $0.hasPrefix("chain_all") }
        #expect(chainFiles.sorted() == ["chain_all001_2025-11-20.csv", "chain_all002_2025-11-20.csv"])
        #expect(truth.feeds.keys.filter { $0.hasPrefix("chain_all") }.count == 5)
        let run = ImportRun(options: ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/snapshots",
                                                   mappingsDirectory: "\(temporary.path)/mappings", parseThreads: 2))
        let report = try run.run()
        let manifest = try SnapshotDirectory(path: "\(temporary.path)/snapshots").readManifest(try #require(report.publishedVersion))
        try expectManifest(manifest, matches: truth)
        #expect(report.rowCounts["pharmacies"] == 8) // 11, less the three Noom feeds broken whole
    }

    /// JSON and fixed-width feeds (FEEDS.md §12) with faults, one JSON feed
    /// cut short: the import counts every record as the generator wrote it.
    @Test func jsonAndFixedWidthFeedsMatchTheGroundTruth() throws {
        let temporary = TemporaryDirectory()
        var world = options(pharmacies: 9, items: 90, badRate: 0.03)
        world.formats = [.noom, .json, .fixed]
        let truth = try FeedGenerator(options: world).generate(into: temporary.path)
        let feeds = try FileManager.default.contentsOfDirectory(atPath: "\(temporary.path)/feeds")
        #expect(feeds.filter { $0.hasPrefix("shop_") }.count == 2 && feeds.filter { $0.hasPrefix("mainframe_") }.count == 2)
        let reasons = Set(truth.feeds.values.flatMap(\.rejectsByReason.keys))
        #expect(reasons.isSuperset(of: ["malformed_json", "bad_quantity", "bad_price", "bad_gtin_check_digit"]), "\(reasons)")
        let run = ImportRun(options: ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/snapshots",
                                                   mappingsDirectory: "\(temporary.path)/mappings", parseThreads: 2))
        let report = try run.run()
        let manifest = try SnapshotDirectory(path: "\(temporary.path)/snapshots").readManifest(try #require(report.publishedVersion))
        try expectManifest(manifest, matches: truth)
    }

    /// `--formats pricelist` (issue 45, item 5): the fixed-width lines read
    /// without their stock column; faults counted as the generator wrote
    /// them, and every price-list offer reports no stock (NULL quantity).
    @Test func priceListFeedsMatchTheGroundTruthAndReportNoStock() throws {
        let temporary = TemporaryDirectory()
        var world = options(pharmacies: 10, items: 90, badRate: 0.03)
        world.formats = [.noom, .pricelist]
        let truth = try FeedGenerator(options: world).generate(into: temporary.path)
        let feeds = try FileManager.default.contentsOfDirectory(atPath: "\(temporary.path)/feeds").filter { $0.hasPrefix("pricelist_") }
        #expect(feeds.sorted() == ["pricelist_10001_202511202301.txt", "pricelist_10003_202511202303.txt", "pricelist_10005_202511202305.txt",
                                   "pricelist_10007_202511202307.txt", "pricelist_10009_202511202309.txt"])
        let report = try ImportRun(options: ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/snapshots",
                                                          mappingsDirectory: "\(temporary.path)/mappings", parseThreads: 2)).run()
        let manifest = try SnapshotDirectory(path: "\(temporary.path)/snapshots").readManifest(try #require(report.publishedVersion))
        try expectManifest(manifest, matches: truth)
        let query = try SnapshotQuery(try #require(report.snapshotPath))
        let stock = query.rows("SELECT pharmacy_id % 2, count(*) > 0, count(quantity) > 0 FROM offers GROUP BY 1 ORDER BY 1")
        #expect(stock == [["0", "1", "1"], ["1", "1", "0"]], "Noom offers carry stock, price-list offers none")
    }

    /// `--formats dateless`: fixed-width files named without a date, their
    /// modification time the export's; the next night's files load over
    /// them, and the same bytes touched again are skipped `duplicate`.
    @Test func datelessFeedsLoadByTheirTimeAndNeverTwice() throws {
        let temporary = TemporaryDirectory()
        var world = options(pharmacies: 4, items: 30, badRate: 0)
        world.formats = [.dateless]
        let truth = try FeedGenerator(options: world).generate(into: temporary.path)
        let feeds = "\(temporary.path)/feeds"
        #expect(try FileManager.default.contentsOfDirectory(atPath: feeds).filter { $0.hasPrefix("transfer_") }.sorted()
                == ["transfer_10000.dat", "transfer_10001.dat", "transfer_10002.dat", "transfer_10003.dat"])
        let snapshots = "\(temporary.path)/snapshots"
        func run(_ asOf: String) throws -> RunReport {
            let options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots, mappingsDirectory: "\(temporary.path)/mappings",
                                        parseThreads: 2, asOf: ISO8601DateFormatter().date(from: asOf))
            return try ImportRun(options: options).run()
        }
        let first = try run("2025-11-22T06:00:00Z")
        try expectManifest(try SnapshotDirectory(path: snapshots).readManifest(try #require(first.publishedVersion)), matches: truth)
        let exported = first.feeds.first { $0.file == "transfer_10000.dat" }?.exportedAt
        #expect(exported?.hasPrefix("2025-11-2") == true, "the modification time the generator set: \(exported ?? "none")")
        // The same files, touched: nothing new.
        for name in try FileManager.default.contentsOfDirectory(atPath: feeds) {
            try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: "\(feeds)/\(name)")
        }
        let second = try run("2025-11-23T06:00:00Z")
        #expect(second.feeds.filter { $0.file.hasPrefix("transfer_") }.map { "\($0.outcome.rawValue) \($0.reason ?? "")" }
                == Array(repeating: "skipped duplicate", count: 4))
        // The next night's files, under the same names: loaded.
        world.daysLater = 1
        world.priceChangeRate = 0.5
        _ = try FeedGenerator(options: world).generate(into: "\(temporary.path)/next")
        for name in try FileManager.default.contentsOfDirectory(atPath: "\(temporary.path)/next/feeds") where name.hasPrefix("transfer_") {
            try FileManager.default.removeItem(atPath: "\(feeds)/\(name)")
            try FileManager.default.moveItem(atPath: "\(temporary.path)/next/feeds/\(name)", toPath: "\(feeds)/\(name)") // keeps the modification time
        }
        let third = try run("2025-11-23T07:00:00Z")
        #expect(third.feeds.filter { $0.file.hasPrefix("transfer_") }.map(\.outcome) == Array(repeating: .loaded, count: 4),
                "\(third.feeds.map { "\($0.file) \($0.message ?? "")" })")
    }

    /// `--register-layout estonian`: the register as the agency exports it,
    /// read by the generated mapping, prescriptions translated; the snapshot
    /// holds the same register as from the built-in layout.
    @Test func anEstonianRegisterLoadsThroughItsMapping() throws {
        func registerRows(_ layout: RegisterLayout) throws -> (GroundTruth, [[String?]]) {
            let temporary = TemporaryDirectory()
            var world = options(pharmacies: 3, items: 40, badRate: 0)
            world.registerLayout = layout
            let truth = try FeedGenerator(options: world).generate(into: temporary.path)
            let run = ImportRun(options: ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/snapshots",
                                                       mappingsDirectory: "\(temporary.path)/mappings", parseThreads: 2))
            let report = try run.run()
            try expectManifest(try SnapshotDirectory(path: "\(temporary.path)/snapshots").readManifest(try #require(report.publishedVersion)), matches: truth)
            let query = try SnapshotQuery("\(temporary.path)/snapshots/current")
            return (truth, query.rows("SELECT package_code, name, lower(trim(form)), prescription, leaflet_url FROM medicine_register ORDER BY package_code"))
        }
        let (estonian, translated) = try registerRows(.estonian)
        let (_, builtIn) = try registerRows(.builtIn)
        let register = try #require(estonian.feeds["ravimiregister_2025-01-01.csv"])
        #expect(register.outcome == "loaded" && register.accepted > 10 && register.rejected == 0)
        #expect(translated == builtIn)
        #expect(Set(translated.map { $0[3] }) == ["Rx", "OTC"])
    }

    @Test func theSameSeedGivesByteIdenticalFeeds() throws {
        let a = TemporaryDirectory()
        let b = TemporaryDirectory()
        _ = try FeedGenerator(options: options(badRate: 0.02)).generate(into: a.path)
        _ = try FeedGenerator(options: options(badRate: 0.02)).generate(into: b.path)
        let first = try contents("\(a.path)/feeds")
        #expect(first.count == 20)
        #expect(first == (try contents("\(b.path)/feeds")))
        #expect(try contents("\(a.path)/mappings") == (try contents("\(b.path)/mappings")))
        #expect(try Data(contentsOf: a.url("ground-truth.json")) == Data(contentsOf: b.url("ground-truth.json")))

        let other = TemporaryDirectory()
        _ = try FeedGenerator(options: options(seed: 43, badRate: 0.02)).generate(into: other.path)
        #expect(first != (try contents("\(other.path)/feeds")))
    }

    @Test func theSameSeedGivesIdenticalSnapshotTables() throws {
        func tables(_ temporary: TemporaryDirectory) throws -> [String: [[String?]]] {
            _ = try FeedGenerator(options: options(pharmacies: 6, items: 60)).generate(into: temporary.path)
            // One run time for both: `loaded_at` is the run's time.
            let report = try ImportRun(options: ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/s",
                                                              mappingsDirectory: "\(temporary.path)/mappings", parseThreads: 2,
                                                              asOf: Date(timeIntervalSince1970: 1_763_704_800))).run()
            let query = try SnapshotQuery(try #require(report.snapshotPath))
            var result: [String: [[String?]]] = [:]
            for table in BuiltInFormats.schema.countedTables {
                let columns = query.rows("SELECT count(*) FROM pragma_table_info('\(table)')").first?.first.flatMap { $0.flatMap(Int.init) } ?? 1
                result[table] = query.rows("SELECT * FROM \(table) ORDER BY " + (1...columns).map(String.init).joined(separator: ", "))
            }
            result["items_search"] = query.rows("SELECT * FROM items_search ORDER BY aptcode")
            return result
        }
        let first = try tables(TemporaryDirectory())
        #expect(first["offers"]?.count == 360)
        #expect(first == (try tables(TemporaryDirectory())))
    }

    @Test func aCleanFolderLoadsEverything() throws {
        let temporary = TemporaryDirectory()
        let truth = try FeedGenerator(options: options(pharmacies: 9, items: 50)).generate(into: temporary.path)
        #expect(truth.feeds.values.allSatisfy { $0.rejected == 0 && $0.outcome == "loaded" })
        let report = try ImportRun(options: ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/s",
                                                          mappingsDirectory: "\(temporary.path)/mappings", parseThreads: 2)).run()
        #expect(report.rowCounts["offers"] == 450)
        #expect(report.rowCounts["pharmacies"] == 9)
        let query = try SnapshotQuery(try #require(report.snapshotPath))
        // Estonian letters survive every format, tier prices exist, ATC counts add up.
        #expect(query.int("SELECT count(*) FROM items WHERE name GLOB '*[õäöüšž]*' OR name GLOB '*[ÕÄÖÜŠŽ]*'") ?? 0 > 0)
        #expect(query.int("SELECT count(*) FROM offers WHERE price_50_cents IS NOT NULL OR price_100_cents IS NOT NULL") ?? 0 > 0)
        #expect(query.int("SELECT sum(item_count) FROM atc WHERE level = 1") == query.int("SELECT count(*) FROM items WHERE atc IS NOT NULL"))
        #expect(Set(report.feeds.compactMap(\.adapter)).isSuperset(of: ["rax", "noom", "mapping:generated_chain"]))
    }

    /// A later night as nights are (issue 43): the share of stock levels
    /// asked for changes, the prices asked for move, and the rest of each
    /// line stays as the first night wrote it; the prices of a seed are the
    /// same whatever the quantity share.
    @Test func aLaterNightChangesTheSharesOfQuantitiesAndPricesAskedFor() throws {
        func lines(_ world: FeedGenerator.Options) throws -> [String: (price: String, quantity: String)] {
            let temporary = TemporaryDirectory()
            _ = try FeedGenerator(options: world).generate(into: temporary.path)
            var result: [String: (String, String)] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: "\(temporary.path)/feeds") where name.hasPrefix("rax_") {
                let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: "\(temporary.path)/feeds/\(name)")), as: UTF8.self)
                for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("I;") {
                    let fields = line.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
                    result["\(name.split(separator: "_")[1]) \(fields[1])"] = (fields[fields.count - 2], fields[fields.count - 1])
                }
            }
            return result
        }
        var world = options(pharmacies: 6, items: 400)
        world.formats = [.rax]
        let first = try lines(world)
        world.daysLater = 1
        world.priceChangeRate = 0.02
        world.quantityChangeRate = 0.3
        let later = try lines(world)
        world.quantityChangeRate = 0
        let pricesOnly = try lines(world)
        try #require(first.count > 2000 && Set(first.keys) == Set(later.keys))
        let quantities = Double(first.keys.filter { first[$0]!.quantity != later[$0]!.quantity }.count) / Double(first.count)
        let prices = Double(first.keys.filter { first[$0]!.price != later[$0]!.price }.count) / Double(first.count)
        #expect((0.27...0.33).contains(quantities), "\(quantities)")
        #expect((0.01...0.03).contains(prices), "\(prices)")
        #expect(first.keys.allSatisfy { pricesOnly[$0]!.quantity == first[$0]!.quantity && pricesOnly[$0]!.price == later[$0]!.price })
    }
}
