import Foundation

/// How the generator writes the medicine register.
public enum RegisterLayout: String, Sendable, CaseIterable {
    /// The register's own CSV (FEEDS.md §11).
    case builtIn = "built-in"
    /// The Estonian agency's export, read by a generated mapping (FEEDS.md §12.1).
    case estonian
}

/// The reference files of a generated folder: registry, reimbursement list,
/// ATC, ICD-10, GS1 datasheets and the medicine register, with faults at
/// the chosen rate.
struct ReferenceFileWriter {
    let catalog: GeneratedCatalog
    let pharmacies: Int
    let seed: UInt64
    let badRate: Double
    let name: (Int) -> String
    /// The reimbursement list is valid from January 1 of this year.
    var listYear = 2025
    var registerLayout = RegisterLayout.builtIn

    /// Diagnosis items in each notation the catalog uses.
    static let itemsPerNotation = ["(A50-A53)*": 1, "I21*; I22*; I25.2*": 3, "E10-E11; E13-14; E89.1; O24": 4,
                                   "M05-M06; M08, M45*, L40.5": 4, "C00-C97, D00-D09**": 2, "G35***": 1, "J45; J46*": 2]
    static let regions = ["TALLINN", "TARTU", "PÄRNU", "NARVA", "VILJANDI", "RAKVERE", "KURESSAARE", "VÕRU"]

    func write(to directory: String) throws -> [(String, GroundTruth.Feed)] {
        var random = SeededRandom(seed: seed, stream: 2)
        return [
            ("pharmacies.csv", try registry(directory, &random)),
            ("reimbursement_\(listYear)-01-01.xml", try reimbursement(directory, &random)),
            ("atc.csv", try atc(directory)),
            ("icd10.csv", try icd10(directory)),
            ("gs1_datasheets.xml", try gs1(directory, &random)),
            (registerFileName, try register(directory)),
        ]
    }

    /// Opening hours in both notations the registry uses (READ_API.md,
    /// Version 3), each read into `pharmacy_hours`: a test database has
    /// pharmacies open and closed at any hour. One pharmacy in 61 (from the
    /// 61st on, so small worlds have none) gives free text
    /// (`freeTextHours`): kept as written, hours unknown, one warning each.
    static let openingHours = ["E-R 9-19; L 10-16", "Mo-Fr 08:00-20:00; Sa 10:00-16:00; PH off", "E-P 8-22", "24/7",
                               "Mo-Sa 09:00-21:00; Su 10:00-18:00", "E-R 8.30-17.30; L,P suletud"]
    static let freeTextHours = "kokkuleppel, helistage ette"

    static func openingHours(ofPharmacy index: Int) -> String {
        index % 61 == 60 ? freeTextHours : openingHours[index % openingHours.count]
    }

    private func registry(_ directory: String, _ random: inout SeededRandom) throws -> GroundTruth.Feed {
        var truth = GroundTruth.Feed()
        var sink = try ByteSink(path: "\(directory)/pharmacies.csv")
        defer { sink.close() }
        sink.append("id,name,chain_id,region,address,phone,open_hours,latitude,longitude\n")
        for index in 0..<pharmacies {
            let region = Self.regions[index % Self.regions.count]
            // With faults on, row 1 always has one, so the reason is always present.
            let bad = index > 0 && badRate > 0 && (index == 1 || random.chance(badRate))
            let latitude = bad ? "95.0000" : String(format: "%.6f", 57.6 + Double(random.int(0...2000)) / 1000)
            let longitude = String(format: "%.6f", 21.9 + Double(random.int(0...6000)) / 1000)
            sink.append("\(FeedGenerator.pharmacyID(index)),\(name(index)),\(index % 7),\(region),\"Tänav \(index % 97 + 1), \(region.capitalized)\",+372-600-\(String(format: "%04d", index % 10_000)),\"\(Self.openingHours(ofPharmacy: index))\",\(latitude),\(longitude)\n")
            if bad { truth.reject("bad_coordinates") } else { truth.accept() }
        }
        try sink.finish()
        return truth
    }

    private func reimbursement(_ directory: String, _ random: inout SeededRandom) throws -> GroundTruth.Feed {
        var truth = GroundTruth.Feed()
        var sink = try ByteSink(path: "\(directory)/reimbursement_\(listYear)-01-01.xml")
        defer { sink.close() }
        sink.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<reimbursementList validFrom=\"\(listYear)-01-01\">\n  <legend>\n")
        sink.append("    <abbr code=\"rv\">ravimi väljakirjutamise õigus</abbr>\n    <abbr code=\"e\">eriarst</abbr>\n  </legend>\n")
        truth.accept()
        truth.accept()
        var badDiagnosisWritten = false // with faults on, at least one
        for (index, package) in catalog.packages.enumerated() {
            let badCode = index > 0 && badRate > 0 && (index == 1 || random.chance(badRate))
            var code = package.code
            if badCode { code = String(code.dropLast()) + String((Int(String(code.last!))! + 1) % 10) }
            sink.append("  <package code=\"\(code)\">\n")
            if let limit = package.limitCents { sink.append("    <limitPrice>\(limit / 100).\(String(format: "%02d", limit % 100))</limitPrice>\n") }
            var diagnosisItems: [(good: Int, bad: Int)] = []
            for tier in package.tiers {
                guard let diagnoses = tier.diagnoses else { sink.append("    <tier rate=\"\(tier.rate)\"/>\n"); continue }
                let badItem = badRate > 0 && (!badDiagnosisWritten || random.chance(badRate))
                if badItem, !badCode { badDiagnosisWritten = true }
                sink.append("    <tier rate=\"\(tier.rate)\">\n      <diagnoses>\(diagnoses)\(badItem ? "; XX1" : "")</diagnoses>\n")
                if let info = tier.info { sink.append("      <info>\(info)</info>\n") }
                sink.append("    </tier>\n")
                diagnosisItems.append((Self.itemsPerNotation[diagnoses]!, badItem ? 1 : 0))
            }
            sink.append("  </package>\n")
            if badCode {
                truth.reject("bad_package_code") // its diagnosis items are not read
            } else {
                truth.accept()
                for (good, bad) in diagnosisItems {
                    for _ in 0..<good { truth.accept() }
                    for _ in 0..<bad { truth.reject("bad_diagnosis") }
                }
            }
        }
        sink.append("</reimbursementList>\n")
        try sink.finish()
        return truth
    }

    private func atc(_ directory: String) throws -> GroundTruth.Feed {
        try codeList(directory, "atc.csv", rows: catalog.atc.map { ($0.code, $0.name) },
                     faults: [("A1", "vale kuju", "bad_atc_code"), ("Z99AA01", "vanemata rühm", "missing_parent")])
    }

    private func icd10(_ directory: String) throws -> GroundTruth.Feed {
        try codeList(directory, "icd10.csv", rows: catalog.icd10, faults: [("XX", "vale kood", "bad_icd10_code")])
    }

    /// A `code;name` file; with faults on, the fault rows follow the good ones.
    private func codeList(_ directory: String, _ name: String, rows: [(code: String, name: String)],
                          faults: [(code: String, name: String, reason: String)]) throws -> GroundTruth.Feed {
        var truth = GroundTruth.Feed()
        var sink = try ByteSink(path: "\(directory)/\(name)")
        defer { sink.close() }
        sink.append("code;name\n")
        for row in rows {
            sink.append("\(row.code);\(row.name)\n")
            truth.accept()
        }
        if badRate > 0 {
            for fault in faults {
                sink.append("\(fault.code);\(fault.name)\n")
                truth.reject(fault.reason)
            }
        }
        try sink.finish()
        return truth
    }

    private func gs1(_ directory: String, _ random: inout SeededRandom) throws -> GroundTruth.Feed {
        var truth = GroundTruth.Feed()
        var sink = try ByteSink(path: "\(directory)/gs1_datasheets.xml")
        defer { sink.close() }
        sink.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tradeItemDatasheet xmlns=\"urn:gs1:datasheet:1\">\n")
        for (index, item) in catalog.items.enumerated() where index % 3 == 0 {
            let corrupt = index == 3 && badRate > 0
            let gtin = corrupt ? String(item.gtin.dropLast()) + String((Int(String(item.gtin.last!))! + 1) % 10) : item.gtin
            sink.append("  <tradeItem>\n    <gtin>0\(gtin)</gtin>\n    <unitDescriptor>BASE_UNIT_OR_EACH</unitDescriptor>\n")
            sink.append("    <brandName>\(item.producer.replacingOccurrences(of: "'", with: "&apos;"))</brandName>\n")
            sink.append("    <description lang=\"et\">\(item.name)</description>\n    <netContent unit=\"H87\">\(random.int(1...100))</netContent>\n")
            sink.append("    <imageUrl>http://images.example/\(item.gtin).jpg</imageUrl>\n")
            let fourLevels = index % 27 == 0
            if fourLevels {
                // The datasheet's other attributes (FEEDS.md §10), from the index
                // alone: the seed's stream stays what it was for what follows.
                sink.append("    <informationProviderGLN>\(GeneratedCatalog.withCheckDigit(gtin12: String(format: "474%09d", index)))</informationProviderGLN>\n")
                sink.append("    <description lang=\"en\">\(item.name) (EN)</description>\n")
                sink.append("    <height unit=\"CMT\">\(index % 9 + 2)</height><width unit=\"MMT\">\(index % 50 + 40)</width>")
                sink.append("<depth unit=\"MTR\">0.\(index % 8 + 1)</depth>\n    <grossWeight unit=\"GRM\">\(index % 400 + 10)</grossWeight>\n")
                sink.append("    <inspection date=\"20\(String(format: "%02d-%02d-%02d", 15 + index % 10, index % 12 + 1, index % 28 + 1))\">\n")
            } else {
                sink.append("    <inspection>\n")
            }
            for attribute in ["description", "netContent", "imageUrl"] {
                sink.append("      <attribute id=\"\(attribute)\" result=\"\(random.int(0...3))\"/>\n")
            }
            sink.append("    </inspection>\n  </tradeItem>\n")
            if corrupt { truth.reject("bad_gtin_check_digit") } else { truth.accept() }
            if index % 9 == 0 {
                // Every ninth item comes in a case of 12; every 27th in all four
                // levels: 6 in an inner pack, 10 packs in a case, 40 cases on a pallet.
                let base = "0\(item.gtin)"
                let pack = GeneratedCatalog.withCheckDigit(gtin12: "2" + item.gtin.dropLast())
                if fourLevels {
                    sink.append("  <tradeItem>\n    <gtin>\(pack)</gtin>\n    <unitDescriptor>PACK_OR_INNER_PACK</unitDescriptor>\n")
                    sink.append("    <description lang=\"et\">\(item.name), PAKK 6</description>\n    <netContent unit=\"H87\">6</netContent>\n")
                    sink.append("    <child gtin=\"\(base)\" quantity=\"6\"/>\n")
                    sink.append("    <inspection date=\"2024-01-15\"><attribute id=\"description\" result=\"1\"/></inspection>\n  </tradeItem>\n")
                    truth.accept()
                }
                let caseGTIN = GeneratedCatalog.withCheckDigit(gtin12: "1" + item.gtin.dropLast())
                sink.append("  <tradeItem>\n    <gtin>\(caseGTIN)</gtin>\n    <unitDescriptor>CASE</unitDescriptor>\n")
                sink.append("    <description lang=\"et\">\(item.name), KARP \(fourLevels ? 60 : 12)</description>\n    <netContent unit=\"H87\">\(fourLevels ? 60 : 12)</netContent>\n")
                sink.append(fourLevels ? "    <child gtin=\"\(pack)\" quantity=\"10\"/>\n  </tradeItem>\n" : "    <child gtin=\"\(base)\" quantity=\"12\"/>\n  </tradeItem>\n")
                truth.accept()
                if fourLevels {
                    let pallet = GeneratedCatalog.withCheckDigit(gtin12: "3" + item.gtin.dropLast())
                    sink.append("  <tradeItem>\n    <gtin>\(pallet)</gtin>\n    <unitDescriptor>PALLET</unitDescriptor>\n")
                    sink.append("    <child gtin=\"\(caseGTIN)\" quantity=\"40\"/>\n  </tradeItem>\n")
                    truth.accept()
                }
            }
        }
        if badRate > 0 {
            let orphan = GeneratedCatalog.withCheckDigit(gtin12: "2474" + String(format: "%09d", 1))
            sink.append("  <tradeItem>\n    <gtin>\(orphan)</gtin>\n    <unitDescriptor>CASE</unitDescriptor>\n  </tradeItem>\n")
            truth.reject("bad_hierarchy")
        }
        sink.append("</tradeItemDatasheet>\n")
        try sink.finish()
        return truth
    }

    /// Form, strength and pack size as the register writes them, for each
    /// of the catalogue's name endings (`GeneratedCatalog.forms`). Many
    /// medicines share an ATC code and an ending, so test databases have
    /// equivalents for `?q=eq`; a few are written in other letter case and
    /// with spaces, as registers do, which the comparison must see through.
    static let registerForms = ["TBL 400MG N10": ("tablett", "400mg", "10"), "TBL 200MG N20": ("tablett", "200mg", "20"),
                                "KAPS N30": ("kapsel", "", "30"), "SIIRUP 100ML": ("siirup", "", "100 ml"),
                                "KREEM 50G": ("kreem", "", "50 g"), "GEEL 30G": ("geel", "", "30 g"),
                                "TILGAD 10ML": ("silmatilgad", "", "10 ml"), "PULBER N10": ("pulber", "", "10")]

    var registerFileName: String {
        switch registerLayout {
        case .builtIn: "medicine_register_\(listYear)-01-01.csv"
        case .estonian: "ravimiregister_\(listYear)-01-01.csv"
        }
    }

    /// The Estonian agency's export: its own column names, `Retseptiravim`
    /// and `Käsimüügiravim` for Rx and OTC, no SPC column.
    static let estonianRegisterMapping = """
        # Written by `ingest generate --register-layout estonian` (FEEDS.md §12.1): the register as the agency exports it.
        kind = "register"
        [match]
        filename = "ravimiregister_*.csv"
        [format]
        delimiter = ";"
        [export]
        date_from_filename = 'ravimiregister_([0-9]{4}-[0-9]{2}-[0-9]{2})\\.csv$'
        [columns]
        package_code = "Pakendi kood"
        name = "Nimetus"
        form = "Ravimvorm"
        strength = "Tugevus"
        pack_size = "Pakendi suurus"
        atc = "ATC kood"
        active_substance = "Toimeaine"
        leaflet_url = "Pakendi infoleht"
        prescription = "Retsepti staatus"
        [values]
        prescription = { "Retseptiravim" = "Rx", "Käsimüügiravim" = "OTC" }

        """

    /// The medicine register (FEEDS.md §11): every medicine of the catalogue, faultless.
    private func register(_ directory: String) throws -> GroundTruth.Feed {
        var truth = GroundTruth.Feed()
        var sink = try ByteSink(path: "\(directory)/\(registerFileName)")
        defer { sink.close() }
        if registerLayout == .estonian {
            sink.append("Pakendi kood;Nimetus;Ravimvorm;Tugevus;Pakendi suurus;ATC kood;Toimeaine;Pakendi infoleht;Retsepti staatus\n")
            for (index, item) in catalog.items.enumerated() {
                guard let code = item.packageCode, let atc = item.atc else { continue }
                let ending = Self.registerForms.keys.first { item.name.hasSuffix(" " + $0) } ?? ""
                let (form, strength, packSize) = Self.registerForms[ending] ?? ("", "", "")
                let name = String(item.name.dropLast(ending.count)).trimmingCharacters(in: .whitespaces)
                sink.append("\(code);\"\(name)\";\(form);\(strength);\(packSize);\(atc);\(item.substance ?? "");")
                sink.append("https://register.example/leaflet/\(code).pdf;\(index % 2 == 0 ? "Retseptiravim" : "Käsimüügiravim")\n")
                truth.accept()
            }
            try sink.finish()
            return truth
        }
        sink.append("package_code;name;form;strength;pack_size;atc;active_substance;leaflet_url;spc_url;prescription\n")
        for (index, item) in catalog.items.enumerated() {
            guard let code = item.packageCode, let atc = item.atc else { continue }
            let ending = Self.registerForms.keys.first { item.name.hasSuffix(" " + $0) } ?? ""
            var (form, strength, packSize) = Self.registerForms[ending] ?? ("", "", "")
            if index % 7 == 0 { (form, strength) = (" " + form.uppercased(), strength.uppercased() + " ") }
            let name = String(item.name.dropLast(ending.count)).trimmingCharacters(in: .whitespaces)
            sink.append("\(code);\"\(name)\";\(form);\(strength);\(packSize);\(atc);\(item.substance ?? "");")
            sink.append("https://register.example/leaflet/\(code).pdf;https://register.example/spc/\(code).pdf;\(index % 2 == 0 ? "Rx" : "OTC")\n")
            truth.accept()
        }
        try sink.finish()
        return truth
    }
}
