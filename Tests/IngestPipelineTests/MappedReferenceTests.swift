import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// FEEDS.md §12, registry and register by mapping (`kind = "registry"`,
/// `kind = "register"`), over two nights: the same rules as their own CSVs
/// (§5, §11), the register's date from `[export]`, and on a night without
/// them, yesterday's rows kept.
@Suite struct MappedReferenceTests {
    /// A registry in another layout: fixed width, names differing, degrees with a point.
    static let registryMapping = """
        kind = "registry"
        [match]
        filename = "apteegid_*.txt"
        [format]
        type = "fixed"
        header = 1
        encoding = "windows-1257"
        [limits]
        max_reject_rate = 60
        [columns]
        id = [1, 6]
        name = [7, 26]
        region = [27, 34]
        address = [35, 54]
        latitude = [55, 64]
        longitude = [65, 74]
        """

    static let registry = [
        "ID    NAME                REGION  ADDRESS             LAT       LON       ",
        "5060  AASA APTEEK         TALLINN Mustakivi tee 3A    59.4380086 24.871333",
        "31937 SELMA APTEEK        TALLINN Sõpruse pst 174     59.4137    24.6823  ",
        "9999  ",
        "5060  AASA TEINE          TALLINN Elsewhere 1         59.0       24.0     ",
        "5061  ÜLIKOOLI APTEEK     TARTU   Ülikooli 6          95.0       26.7215  ",
    ].joined(separator: "\r\n") + "\r\n"

    /// A register in JSON Lines, its date in the file name.
    static let registerMapping = """
        kind = "register"
        [match]
        filename = "register_*.jsonl"
        [format]
        type = "jsonl"
        [export]
        date_from_filename = "register_([0-9-]{10})\\\\.jsonl$"
        [limits]
        max_reject_rate = 60
        [columns]
        package_code = "/code"
        name = "/name"
        atc = "/atc"
        active_substance = "/substance"
        leaflet_url = "/urls/leaflet"
        prescription = "/rx"
        """

    static let register = """
        {"code": "1144976", "name": "DOXY-M-RATIOPHARM", "atc": "j01aa02", "substance": "Doxycyclinum", "urls": {"leaflet": "https://register.example/l/1144976.pdf"}, "rx": "Rx"}
        {"code": "1144977", "name": "BAD CHECK DIGIT", "urls": {"leaflet": "https://x.example/"}, "rx": "Rx"}
        {"code": "1012341", "name": "IBUMETIN", "urls": {"leaflet": "javascript:alert(1)"}, "rx": "OTC"}
        {"code": "1012352", "name": "IBUMETIN", "urls": {"leaflet": "https://register.example/l/1012352.pdf"}, "rx": "OTC"}

        """

    @Test func registryAndRegisterByMappingOverTwoNights() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        let mappings = temporary.subdirectory("mappings")
        for file in ["rax_31937_201105192305.txt", "rax_5060_201012302305.txt", "noom_5061_20240519.xml"] {
            try FileManager.default.copyItem(atPath: RepositoryFiles.feed(file), toPath: "\(feeds)/\(file)")
        }
        _ = temporary.write("mappings/apteegid.mapping.toml", text: Self.registryMapping)
        _ = temporary.write("mappings/register.mapping.toml", text: Self.registerMapping)
        _ = temporary.writeCP1257("feeds/apteegid_2024.txt", text: Self.registry)
        _ = temporary.write("feeds/register_2011-05-01.jsonl", text: Self.register)
        let snapshots = "\(temporary.path)/snapshots"
        func night(_ day: Int) throws -> (RunReport, SnapshotQuery) {
            let options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots, mappingsDirectory: mappings, parseThreads: 2,
                                        asOf: Date(timeIntervalSince1970: 1_716_174_000 + Double(day) * 86_400))
            let report = try ImportRun(options: options).run()
            return (report, try SnapshotQuery("\(snapshots)/current"))
        }
        let (first, query) = try night(0)
        let registryLine = try #require(first.feeds.first { $0.file == "apteegid_2024.txt" })
        #expect(registryLine.kind == "pharmacy_registry" && registryLine.adapter == "mapping:apteegid" && registryLine.outcome == .loaded)
        #expect(first.rejects.sample.filter { $0.file == "apteegid_2024.txt" }.map { "\($0.line) \($0.key) \($0.reason.rawValue)" }
                == ["4 9999 missing_field", "5 5060 duplicate_key", "6 5061 bad_coordinates"])
        #expect(query.rows("SELECT id, name, region, address, latitude, longitude FROM pharmacies ORDER BY id") == [
            ["31937", "SELMA APTEEK", "TALLINN", "Sõpruse pst 174", "59.4137", "24.6823"],
            ["5060", "AASA APTEEK", "TALLINN", "Mustakivi tee 3A", "59.4380086", "24.871333"],
            ["5061", "ÜLIKOOLI APTEEK", "UNKNOWN", nil, nil, nil],
        ])
        let registerLine = try #require(first.feeds.first { $0.file == "register_2011-05-01.jsonl" })
        #expect(registerLine.kind == "medicine_register" && registerLine.outcome == .loaded && registerLine.exportedAt == "2011-05-01")
        #expect(first.rejects.sample.filter { $0.file == "register_2011-05-01.jsonl" }.map { "\($0.line) \($0.reason.rawValue)" }
                == ["2 bad_package_code", "3 bad_url"])
        #expect(query.rows("SELECT package_code, atc, leaflet_url FROM medicine_register ORDER BY package_code") == [
            ["1012352", nil, "https://register.example/l/1012352.pdf"],
            ["1144976", "J01AA02", "https://register.example/l/1144976.pdf"],
        ])
        #expect(query.value("SELECT value FROM meta WHERE key = 'medicine_register_valid_from'") == "2011-05-01")

        // The next night brings neither file: both are kept from current.
        try FileManager.default.removeItem(atPath: "\(feeds)/apteegid_2024.txt")
        try FileManager.default.removeItem(atPath: "\(feeds)/register_2011-05-01.jsonl")
        let (second, kept) = try night(1)
        #expect(second.carriedOver.filter { $0.kind == .reference }.map(\.key).sorted() == ["medicine_register", "pharmacy_registry"])
        #expect(kept.rows("SELECT id, name, latitude FROM pharmacies WHERE id = '5060'") == [["5060", "AASA APTEEK", "59.4380086"]])
        #expect(kept.int("SELECT count(*) FROM medicine_register") == 2)

        // A newer register whose every row is rejected is rejected whole and supersedes nothing (FEEDS.md §12.1).
        let leaflets = kept.int("SELECT count(*) FROM items WHERE info_url IS NOT NULL")
        #expect((leaflets ?? 0) > 0)
        _ = temporary.write("feeds/register_2011-06-01.jsonl", text: """
            {"code": "1144977", "name": "BAD CHECK DIGIT", "rx": "Rx"}
            {"code": "1144976", "name": "DOXY", "rx": "maybe"}

            """)
        let (third, still) = try night(2)
        let refused = try #require(third.feeds.first { $0.file == "register_2011-06-01.jsonl" })
        #expect(refused.outcome == .rejected && refused.read == 2 && refused.accepted == 0)
        #expect(refused.message == "too_many_rejects: 2 of 2 rows rejected (100.0 %), every row rejected; not loaded, the one in force stays")
        #expect(third.carriedOver.filter { $0.kind == .reference }.map(\.key).sorted() == ["medicine_register", "pharmacy_registry"])
        #expect(still.int("SELECT count(*) FROM medicine_register") == 2)
        #expect(still.value("SELECT value FROM meta WHERE key = 'medicine_register_valid_from'") == "2011-05-01")
        #expect(still.int("SELECT count(*) FROM items WHERE info_url IS NOT NULL") == leaflets)
    }
}
