import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

private func open(_ name: String, _ text: String, in directory: TemporaryDirectory) throws -> FeedFile {
    try FeedFile.open(path: directory.write(name, text: text), name: name)
}

private func sample(_ name: String) throws -> FeedFile {
    try FeedFile.open(path: RepositoryFiles.feed(name), name: name)
}

@Suite struct ReimbursementListAdapterTests {
    let adapter = ReimbursementListAdapter()

    @Test func theSpecExample() throws {
        let file = try sample("reimbursement_2011-05-01.xml")
        #expect(adapter.recognises(file))
        var output = FeedOutput<ReimbursementEntry>(file: file.name)
        let validFrom = adapter.parse(file, into: &output)
        #expect(validFrom == ReimbursementListAdapter.Header(validFrom: "2011-05-01", currency: "EUR"))
        #expect(output.failure == nil)
        // 3 packages + 2 legend entries + 12 diagnosis items.
        #expect(output.read == 17 && output.accepted == 17 && output.rejected == 0)
        let packages = output.records.compactMap { entry -> (String, Int64?, [Int])? in
            if case .package(let code, let limit, let tiers, _) = entry { return (code, limit, tiers.map(\.rate)) }
            return nil
        }
        #expect(packages.map(\.0) == ["1144976", "1012341", "1012352"])
        #expect(packages.map(\.1) == [189, 290, 715])
        #expect(packages[0].2 == [100, 50])
        let legend = output.records.compactMap { entry -> String? in
            if case .legend(let code, let text, _) = entry { return "\(code)=\(text)" }
            return nil
        }
        #expect(legend == ["rv=ravimi väljakirjutamise õigus", "e=eriarst"])
    }

    private func list(_ packages: String) -> String {
        "<reimbursementList validFrom=\"2020-01-01\"><legend><abbr code=\"rv\">x</abbr></legend>\(packages)</reimbursementList>"
    }

    @Test func aBadDiagnosisItemIsRejectedWhileThePackageStays() throws {
        let directory = TemporaryDirectory()
        let text = list("<package code=\"1144976\"><limitPrice>1.89</limitPrice><tier rate=\"100\"><diagnoses>A50; XX1; A60-A55; (B20)*</diagnoses><info>*rv x</info></tier></package>")
        let output = adapter.parse(try open("r.xml", text, in: directory))
        #expect(output.read == output.accepted + output.rejected)
        #expect(output.rejects.map(\.reason) == [.badDiagnosis, .badDiagnosis])
        #expect(output.rejects.allSatisfy { $0.key == "1144976/100" })
        #expect(output.records.contains { if case .package(let code, _, _, _) = $0 { return code == "1144976" }; return false })
        #expect(output.accepted == 4) // package, legend entry, A50, B20
    }

    @Test(arguments: [
        ("<package code=\"1144975\"><tier rate=\"100\"/></package>", RejectReason.badPackageCode),
        ("<package code=\"1144976\"><tier rate=\"90\"/></package>", .badTier),
        ("<package code=\"1144976\"><tier rate=\"50\"/><tier rate=\"50\"/></package>", .badTier),
        ("<package code=\"1144976\"></package>", .badTier),
        ("<package code=\"1144976\"><limitPrice>abc</limitPrice><tier rate=\"50\"/></package>", .badPrice),
    ])
    func badPackagesAreRejected(package: String, reason: RejectReason) throws {
        let directory = TemporaryDirectory()
        let output = adapter.parse(try open("r.xml", list(package + "<package code=\"1012341\"><tier rate=\"50\"/></package>"), in: directory))
        #expect(output.rejects.map(\.reason) == [reason])
        #expect(output.accepted == 2)
    }

    @Test func aFieldPastTheTextLimitRejectsItsPackageOrLegendEntry() throws {
        let directory = TemporaryDirectory()
        let long = String(repeating: "x", count: XMLTextCapture.maxBytes + 1)
        let text = "<reimbursementList validFrom=\"2020-01-01\"><legend><abbr code=\"rv\">x</abbr><abbr code=\"e\">\(long)</abbr></legend>"
            + "<package code=\"1144976\"><tier rate=\"100\"><diagnoses>A50</diagnoses><info>\(long)</info></tier></package>"
            + "<package code=\"1012341\"><tier rate=\"50\"/></package></reimbursementList>"
        let output = adapter.parse(try open("r.xml", text, in: directory))
        #expect(output.failure == nil)
        #expect(output.rejects.map(\.reason) == [.lineTooLong, .lineTooLong])
        #expect(output.rejects.map(\.field) == ["abbr", "tier.info"])
        #expect(output.rejects.map(\.key) == ["e", "1144976"])
        let packages = output.records.compactMap { entry -> String? in
            if case .package(let code, _, _, _) = entry { return code }
            return nil
        }
        #expect(packages == ["1012341"])
        #expect(output.read == output.accepted + output.rejected)
    }

    @Test func aMarkerWithoutAnInfoLineIsAWarning() throws {
        let directory = TemporaryDirectory()
        let output = adapter.parse(try open("r.xml", list("<package code=\"1144976\"><tier rate=\"100\"><diagnoses>A50**</diagnoses><info>*rv x</info></tier></package>"), in: directory))
        #expect(output.warnings.map(\.code) == [.unknownMarker])
    }

    @Test func missingValidFromRejectsTheList() throws {
        let directory = TemporaryDirectory()
        let output = adapter.parse(try open("r.xml", "<reimbursementList><package code=\"1144976\"><tier rate=\"50\"/></package></reimbursementList>", in: directory))
        #expect(output.failure?.reason == .badHeader)
    }
}

@Suite struct CodeListAdapterTests {
    @Test func theSpecExamplesAreToldApartByContent() throws {
        let atc = try sample("atc.csv")
        let icd = try sample("icd10.csv")
        #expect(ATCAdapter().recognises(atc) && !ICD10Adapter().recognises(atc))
        #expect(ICD10Adapter().recognises(icd) && !ATCAdapter().recognises(icd))
        let directory = TemporaryDirectory()
        // Same content, neutral names: still told apart by the codes.
        let atcCopy = try open("list1.csv", String(contentsOfFile: atc.path!, encoding: .utf8), in: directory)
        #expect(ATCAdapter().recognises(atcCopy))
    }

    @Test func atcExampleCountsAndLevels() throws {
        let output = ATCAdapter().parse(try sample("atc.csv"))
        #expect(output.read == 19 && output.accepted == 19 && output.rejected == 0)
        let byCode = Dictionary(uniqueKeysWithValues: output.records.map { ($0.code, $0) })
        #expect(byCode["A"]?.level == 1 && byCode["A"]?.parent == nil)
        #expect(byCode["A02B"]?.level == 3 && byCode["A02B"]?.parent == "A02")
        #expect(byCode["M01AE01"]?.level == 5 && byCode["M01AE01"]?.parent == "M01AE")
        #expect(output.records.filter { $0.level == 1 }.count == 4)
    }

    @Test func wrongShapesAndMissingParentsAreRejected() throws {
        let directory = TemporaryDirectory()
        let text = "code;name\nA02B;child first\nA;top\nA02;second\nA2;bad shape\nA02BC0;bad length\nB01;no parent\nB01A;parent rejected\nA;again\n"
        let output = ATCAdapter().parse(try open("atc.csv", text, in: directory))
        #expect(output.read == output.accepted + output.rejected)
        #expect(output.records.map(\.code) == ["A02B", "A", "A02"])
        #expect(output.rejects.map(\.reason) == [.badATCCode, .badATCCode, .missingParent, .missingParent, .duplicateKey])
        #expect(output.rejects.map(\.line) == [5, 6, 7, 8, 9])
    }

    @Test func icd10ExampleAndBadCodes() throws {
        let example = ICD10Adapter().parse(try sample("icd10.csv"))
        #expect(example.read == 19 && example.accepted == 19)
        let directory = TemporaryDirectory()
        let output = ICD10Adapter().parse(try open("icd10.csv", "code;name\nA50;x\nA5;y\nA50;z\nB20.1;w\n", in: directory))
        #expect(output.records.map(\.code) == ["A50", "B20.1"])
        #expect(output.rejects.map(\.reason) == [.badICD10Code, .duplicateKey])
    }
}

@Suite struct GS1DatasheetAdapterTests {
    let adapter = GS1DatasheetAdapter()

    @Test func theSpecExample() throws {
        let file = try sample("gs1_datasheet_2015.xml")
        #expect(adapter.recognises(file))
        let output = adapter.parse(file)
        #expect(output.read == 3 && output.accepted == 3 && output.rejected == 0)
        let base = try #require(output.records.first { $0.gtin == "04740086000124" })
        #expect(base.checksPassed == 2 && base.checksWarning == 1 && base.checksFailed == 1 && base.checksUnable == 1)
        #expect(base.description == "IBUMETIN TBL 400MG N10")
        #expect(base.brand == "IBUMETIN")
        let pack = try #require(output.records.first { $0.gtin == "14740086000121" })
        #expect(pack.unitDescriptor == "CASE")
        #expect(pack.children == [.init(gtin: "04740086000124", quantity: 24)])
        #expect(output.warnings.isEmpty)
    }

    private func sheet(_ items: String) -> String {
        "<tradeItemDatasheet xmlns=\"urn:gs1:datasheet:1\">\(items)</tradeItemDatasheet>"
    }

    private func item(_ gtin: String, _ descriptor: String = "BASE_UNIT_OR_EACH", children: [(String, String)] = []) -> String {
        "<tradeItem><gtin>\(gtin)</gtin><unitDescriptor>\(descriptor)</unitDescriptor>"
            + children.map { "<child gtin=\"\($0.0)\" quantity=\"\($0.1)\"/>" }.joined() + "</tradeItem>"
    }

    @Test func hierarchyRulesRejectTheItem() throws {
        let directory = TemporaryDirectory()
        let text = sheet(
            item("4740086000124")                                                    // ok base
            + item("4740086000125")                                                  // bad check digit
            + item("14740086000121", "CASE")                                         // case without children
            + item("4740001000550", children: [("4740086000124", "1")])              // base with children
            + item("24740086000128", "CASE", children: [("4740086000124", "0")])     // quantity not positive
            + item("34740086000125", "PALLET", children: [("44740086000122", "2")])  // cycle …
            + item("44740086000122", "CASE", children: [("34740086000125", "3")])    // … of two
            + item("54740086000129", "CASE", children: [("4740086000131", "6")])     // child without datasheet: warning
        )
        let output = adapter.parse(try open("gs1.xml", text, in: directory))
        #expect(output.read == 8)
        #expect(output.read == output.accepted + output.rejected)
        #expect(output.records.map(\.gtin) == ["04740086000124", "54740086000129"])
        #expect(output.rejects.map(\.reason) == [.badGTINCheckDigit, .badHierarchy, .badHierarchy, .badHierarchy, .badHierarchy, .badHierarchy])
        #expect(output.warnings.map(\.code) == [.unknownChildGTIN])
    }

    @Test func aDescriptionPastTheTextLimitRejectsItsDatasheet() throws {
        let directory = TemporaryDirectory()
        let long = String(repeating: "y", count: XMLTextCapture.maxBytes + 1)
        let text = sheet(
            "<tradeItem><gtin>4740086000124</gtin><unitDescriptor>BASE_UNIT_OR_EACH</unitDescriptor>"
                + "<description lang=\"et\">\(long)</description></tradeItem>"
                + item("04740001000550"))
        let output = adapter.parse(try open("gs1.xml", text, in: directory))
        #expect(output.failure == nil)
        #expect(output.records.map(\.gtin) == ["04740001000550"])
        #expect(output.rejects.map(\.reason) == [.lineTooLong])
        #expect(output.rejects.map(\.field) == ["description"])
        #expect(output.rejects.first?.line == 1)
        #expect(output.read == output.accepted + output.rejected)
    }

    @Test func restrictedGTINsAreKeptWithAWarning() throws {
        let directory = TemporaryDirectory()
        let output = adapter.parse(try open("gs1.xml", sheet(item("2001234567893")), in: directory))
        #expect(output.accepted == 1)
        #expect(output.warnings.map(\.code) == [.restrictedGTIN])
    }
}
