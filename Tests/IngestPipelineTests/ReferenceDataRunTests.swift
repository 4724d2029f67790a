import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// Reference data joined with stock data in a real run over the sample feeds.
@Suite struct ReferenceDataRunTests {
    private func run(_ temporary: TemporaryDirectory, extra: [String: String] = [:], drop: [String] = [],
                     now: Date = Date(), maxRejectRate: Int = 5) throws -> (RunReport, SnapshotQuery) {
        let feeds = temporary.subdirectory("feeds")
        for name in try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.feedsDirectory) where !drop.contains(name) {
            try FileManager.default.copyItem(atPath: RepositoryFiles.feed(name), toPath: "\(feeds)/\(name)")
        }
        for (name, text) in extra { temporary.write("feeds/\(name)", text: text) }
        var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: "\(temporary.path)/snapshots",
                                    mappingsDirectory: RepositoryFiles.mappingsDirectory, parseThreads: 2, now: now)
        options.gates.maxRejectRatePercent = maxRejectRate
        let report = try ImportRun(options: options).run()
        return (report, try SnapshotQuery("\(temporary.path)/snapshots/current"))
    }

    @Test func theThesisFigure() throws {
        let temporary = TemporaryDirectory()
        let (_, query) = try run(temporary)
        // SELMA APTEEK (31937), DOXY-M-RATIOPHARM: its RAX 3.1 feed has no package
        // code, the item's comes from another pharmacy's feed.
        let row = query.rows("""
            SELECT p.name, i.name, o.price_cents, o.limit_price_cents, o.price_100_cents, o.price_50_cents,
                   o.price_75_cents, o.price_90_cents
            FROM offers o JOIN pharmacies p ON p.id = o.pharmacy_id JOIN items i ON i.aptcode = o.aptcode
            WHERE o.pharmacy_id = '31937' AND o.aptcode = 'MM0007145'
            """).first
        #expect(row == ["SELMA APTEEK", "DOXY-M-RATIOPHARM TBL 100MG N10", "237", "189", "175", "237", nil, nil])
    }

    @Test func tierPricesFollowEachFeedsFeePeriod() throws {
        let temporary = TemporaryDirectory()
        let (_, query) = try run(temporary)
        func tiers(_ pharmacy: String, _ aptcode: String) -> [String?]? {
            query.rows("SELECT price_50_cents, price_75_cents, price_90_cents, price_100_cents FROM offers WHERE pharmacy_id = '\(pharmacy)' AND aptcode = '\(aptcode)'").first
        }
        #expect(tiers("5060", "MM0007145") == ["237", nil, nil, "176"])    // 2010: fee 1.28
        #expect(tiers("5061", "MM0007145") == ["237", nil, nil, "237"])    // 2024: fee 2.50 > covered
        #expect(tiers("5060", "MM0034371") == [nil, "390", "302", "243"])  // 75 % listed → 90 % too
        #expect(tiers("5060", "MM0100055") == [nil, nil, nil, nil])        // not on the list
        #expect(query.int("SELECT count(*) FROM offers WHERE (price_75_cents IS NULL) != (price_90_cents IS NULL)") == 0)
        #expect(query.int("SELECT count(*) FROM offers WHERE limit_price_cents IS NULL AND price_50_cents IS NOT NULL") == 0)
    }

    @Test func referenceTablesAndDerivedCounts() throws {
        let temporary = TemporaryDirectory()
        let (report, query) = try run(temporary)
        #expect(report.rowCounts["reimbursements"] == 6)
        #expect(report.rowCounts["reimbursement_diagnoses"] == 12)
        #expect(report.rowCounts["diagnosis_legend"] == 2)
        #expect(report.rowCounts["atc"] == 19)
        #expect(report.rowCounts["gs1_items"] == 3)
        #expect(report.rowCounts["gs1_children"] == 1)
        #expect(query.rows("SELECT child_count, item_count FROM atc WHERE code = 'M'").first == ["1", "3"])
        #expect(query.rows("SELECT child_count, item_count FROM atc WHERE code = 'M01AE'").first == ["1", "3"])
        #expect(query.rows("SELECT child_count, item_count FROM atc WHERE code = 'A02'").first == ["2", "0"])
        #expect(query.rows("SELECT child_count, item_count FROM atc WHERE code = 'N02BE01'").first == ["0", "1"])
        // GS1 fills the image URL (no feed has one) and keeps the feed's producer.
        #expect(query.rows("SELECT producer, image_url FROM items WHERE aptcode = 'MM0034978'").first
                == ["NYCOMED", "http://images.example/4740086000124.jpg"])
        #expect(report.warnings.filter { $0.code == .unknownICD10 }.map(\.message) == ["diagnosis code P70.2 is not in the ICD-10 list; kept"])
    }

    @Test func readEqualsAcceptedPlusRejectedForEveryReferenceFile() throws {
        let temporary = TemporaryDirectory()
        let bad = """
        <reimbursementList validFrom="2012-01-01"><package code="1144976"><limitPrice>1.89</limitPrice>
        <tier rate="100"><diagnoses>A50; Q; B99-B01</diagnoses></tier></package><package code="1234567"><tier rate="50"/></package></reimbursementList>
        """
        let extra = ["reimbursement_2012.xml": bad, "atc_extra.csv": "code;name\nZ;x\nZ9;bad\n"]
        // Allowed to reject most of their rows, the files load what is good in them.
        let (report, _) = try run(temporary, extra: extra, maxRejectRate: 100)
        let manifest = try SnapshotDirectory(path: "\(temporary.path)/snapshots").readManifest(report.publishedVersion!)
        for input in manifest.inputs {
            #expect(input.read == input.accepted + input.rejected, "\(input.file)")
        }
        let list = try #require(manifest.inputs.first { $0.file == "reimbursement_2012.xml" })
        #expect(list.outcome == "loaded")
        #expect(list.rejectsByReason == ["bad_diagnosis": 2, "bad_package_code": 1])
        #expect(manifest.inputs.first { $0.file == "reimbursement_2011-05-01.xml" }?.outcome == "superseded")
        #expect(manifest.inputs.first { $0.file == "atc_extra.csv" }?.rejectsByReason == ["bad_atc_code": 1])

        // Under the run's 5 %, each is rejected whole (FEEDS.md §12.1): the list of 2011 stays in force.
        let strict = TemporaryDirectory()
        let (judged, query) = try run(strict, extra: extra)
        for input in judged.feeds { #expect(input.read == input.accepted + input.rejected, "\(input.file)") }
        let rejected = try #require(judged.feeds.first { $0.file == "reimbursement_2012.xml" })
        #expect(rejected.outcome == .rejected && rejected.accepted == 0)
        #expect(rejected.message == "too_many_rejects: 3 of 5 rows rejected (60.0 %), over the 5 % allowed; not loaded, the one in force stays")
        #expect(rejected.rejectsByReason == [.badDiagnosis: 2, .badPackageCode: 1, .tooManyRejects: 2])
        #expect(judged.feeds.first { $0.file == "reimbursement_2011-05-01.xml" }?.outcome == .loaded)
        #expect(query.value("SELECT value FROM meta WHERE key = 'reimbursement_valid_from'") == "2011-05-01")
        let atc = try #require(judged.feeds.first { $0.file == "atc_extra.csv" })
        #expect(atc.outcome == .rejected && atc.rejectsByReason == [.badATCCode: 1, .tooManyRejects: 1])
        #expect(query.int("SELECT count(*) FROM atc WHERE code = 'Z'") == 0)
    }

    @Test func aListValidOnlyAfterTheRunDateIsNotInForce() throws {
        let temporary = TemporaryDirectory()
        let runDate = ISO8601DateFormatter().date(from: "2011-04-01T12:00:00Z")!
        let (report, query) = try run(temporary, now: runDate)
        #expect(report.feeds.first { $0.file == "reimbursement_2011-05-01.xml" }?.outcome == .superseded)
        #expect(query.int("SELECT count(*) FROM offers WHERE limit_price_cents IS NOT NULL") == 0)
        #expect(query.int("SELECT count(*) FROM reimbursements") == 0)
    }

    @Test func aFeedDatedBeforeEveryFeePeriodIsRejected() throws {
        let temporary = TemporaryDirectory()
        var feed = RAXFeedBuilder(pharmacyID: "31461", exportedAt: "20021230T2305", currency: "EEK")
        feed.item("MM0007145", package: "1144976", price: "37,08")
        let text = String(decoding: feed.bytes, as: UTF8.self) // ASCII only
        let (report, _) = try run(temporary, extra: ["rax_31461.txt": text])
        let result = try #require(report.feeds.first { $0.file == "rax_31461.txt" })
        #expect(result.outcome == .rejected)
        #expect(result.rejectsByReason == [.noFeePeriod: 1])
    }

    // MARK: The medicine register (FEEDS.md §11)

    private static let registerHeader = "package_code;name;form;strength;pack_size;atc;active_substance;leaflet_url;spc_url;prescription\n"

    @Test func theRegisterGivesLeafletATCAndSubstanceAndWinsAnATCConflict() throws {
        let temporary = TemporaryDirectory()
        var feed = RAXFeedBuilder(pharmacyID: "8001", exportedAt: RAXFeedBuilder.exportTime(daysAgo: 1))
        feed.item("REG1", package: "1144987", name: "DOXY-M 20") // no ATC, no substance in the feed
        feed.item("REG2", package: "1012341", name: "IBUMETIN", atc: "N02BE01") // the register says M01AE01
        temporary.write("feeds/rax_8001.txt", bytes: feed.bytes)
        let (report, query) = try run(temporary)
        #expect(report.feeds.first { $0.file == "medicine_register_2011-05-01.csv" }?.outcome == .loaded)
        #expect(query.rows("SELECT atc, active_substance, info_url FROM items WHERE aptcode = 'REG1'").first
                == ["J01AA02", "Doxycyclinum", "https://register.example/leaflet/1144987.pdf"])
        #expect(query.value("SELECT atc FROM items WHERE aptcode = 'REG2'") == "M01AE01")
        let conflict = try #require(report.warnings.first { $0.code == .atcConflict })
        #expect(conflict.key == "REG2")
        #expect(conflict.message.contains("N02BE01") && conflict.message.contains("M01AE01"))
        // Form, strength and prescription status are in the snapshot too.
        #expect(query.rows("SELECT form, strength, pack_size, prescription, spc_url FROM medicine_register WHERE package_code = '1144987'").first
                == ["tablett", "100mg", "20", "Rx", nil])
        #expect(query.int("SELECT count(*) FROM medicine_register") == 4)
        #expect(query.value("SELECT value FROM meta WHERE key = 'medicine_register_valid_from'") == "2011-05-01")
    }

    @Test func theNewestRegisterNotAfterTheRunsDateIsInForceAndAMissingOneIsCarriedOver() throws {
        let temporary = TemporaryDirectory()
        let newer = Self.registerHeader + "1144976;DOXY NEW;tablett;100mg;10;J01AA02;Doxycyclinum;https://register.example/new.pdf;;Rx\n"
        let future = Self.registerHeader + "1144976;DOXY FUTURE;tablett;100mg;10;J01AA02;Doxycyclinum;https://register.example/future.pdf;;Rx\n"
        let (report, query) = try run(temporary, extra: ["medicine_register_2011-06-01.csv": newer, "medicine_register_2099-01-01.csv": future])
        #expect(report.feeds.first { $0.file == "medicine_register_2011-05-01.csv" }?.outcome == .superseded)
        #expect(report.feeds.first { $0.file == "medicine_register_2099-01-01.csv" }?.message?.contains("after the run's date") == true)
        #expect(report.feeds.first { $0.file == "medicine_register_2011-06-01.csv" }?.outcome == .loaded)
        #expect(query.value("SELECT info_url FROM items WHERE aptcode = 'MM0007145'") == "https://register.example/new.pdf")

        // The next night no register comes: the one in force is kept.
        for name in ["medicine_register_2011-05-01.csv", "medicine_register_2011-06-01.csv", "medicine_register_2099-01-01.csv"] {
            try FileManager.default.removeItem(atPath: "\(temporary.path)/feeds/\(name)")
        }
        let options = ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/snapshots",
                                    mappingsDirectory: RepositoryFiles.mappingsDirectory, parseThreads: 2)
        let next = try ImportRun(options: options).run()
        #expect(next.carriedOver.contains { $0.kind == .reference && $0.key == "medicine_register" })
        let db = try SnapshotQuery("\(temporary.path)/snapshots/current")
        #expect(db.int("SELECT count(*) FROM medicine_register") == 1)
        #expect(db.value("SELECT info_url FROM items WHERE aptcode = 'MM0007145'") == "https://register.example/new.pdf")
    }

    @Test func aGS1ImageURLThatIsNotHTTPRejectsItsTradeItem() throws {
        let temporary = TemporaryDirectory()
        let sheet = try String(contentsOfFile: RepositoryFiles.feed("gs1_datasheet_2015.xml"), encoding: .utf8)
        let hostile = sheet.replacingOccurrences(of: "http://images.example/4740086000124.jpg", with: "javascript:alert(1)")
        #expect(hostile != sheet)
        let (report, query) = try run(temporary, extra: ["gs1_datasheet_2015.xml": hostile])
        let reject = try #require(report.rejects.first { $0.reason == .badURL })
        #expect(reject.key == "04740086000124" && reject.field == "imageUrl")
        #expect(query.int("SELECT count(*) FROM gs1_items WHERE gtin = '04740086000124'") == 0)
    }
}
