import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

@Suite struct PharmacyRegistryAdapterTests {
    let adapter = PharmacyRegistryAdapter()

    private func parse(_ text: String) -> FeedOutput<PharmacyRecord> {
        let directory = TemporaryDirectory()
        let path = directory.write("pharmacies.csv", text: text)
        let output = adapter.parse(try! FeedFile.open(path: path, name: "pharmacies.csv"))
        #expect(output.read == output.accepted + output.rejected)
        return output
    }

    @Test func readsTheSpecExampleWithQuotedFields() throws {
        let file = try FeedFile.open(path: RepositoryFiles.feed("pharmacies.csv"), name: "pharmacies.csv")
        #expect(adapter.recognises(file))
        let output = adapter.parse(file)
        #expect(output.failure == nil)
        #expect(output.accepted == 5)
        let aasa = output.records.first { $0.id == "5060" }
        #expect(aasa?.address == "Mustakivi tee 3A, 13912 Tallinn")
        #expect(aasa?.openHours == "E-R 10-21; L,P 12-20")
        #expect(aasa?.latitude == 59.4380086)
        #expect(aasa?.longitude == 24.8713330)
        #expect(aasa?.line == 2)
        #expect(output.records.first { $0.id == "7001" }?.chainID == nil)
        #expect(output.records.first { $0.id == "5061" }?.name == "ÜLIKOOLI APTEEK")
    }

    @Test(arguments: ["91.0,24.0", "-90.5,24.0", "59.0,180.1", "59.0,-181", "nan,24", "59,4,24.0", ",24.0", "1e1,24"])
    func coordinatesOutOfRangeAreRejected(coordinates: String) {
        let output = parse("id,name,region,latitude,longitude\n1,A,X,59.0,24.0\n2,B,X,\(coordinates)\n")
        #expect(output.records.map(\.id) == ["1"])
        #expect(output.rejects.count == 1)
        let reason = output.rejects.first?.reason
        #expect(reason == .badCoordinates || reason == .badFieldCount)
    }

    @Test func coordinateRejectNamesLineAndField() {
        let output = parse("id,name,region,latitude,longitude\r\n1,A,X,59.0,24.0\r\n2,B,X,95.0,24.0\r\n")
        #expect(output.rejects.first?.reason == .badCoordinates)
        #expect(output.rejects.first?.line == 3)
        #expect(output.rejects.first?.field == "latitude")
        #expect(output.rejects.first?.key == "2")
    }

    /// A quoted line break is read; in free text it is folded to one space
    /// with a warning, in a name it rejects the row (FEEDS.md §12, text hygiene).
    @Test func columnsMayComeInAnyOrderAndNewlinesMayBeQuoted() throws {
        let output = parse("longitude,latitude,region,address,name,id\n24.1,59.1,TALLINN,\"Two\n  Lines\",Nine,9\n"
                           + "24.2,59.2,TARTU,Here,Plain,10\n24.3,59.3,TARTU,Here,\"Bro\nken\",11\n24.4,59.4,TARTU,\"Bell\u{7}\",Seven\u{1},12\n")
        #expect(output.records.map(\.id) == ["9", "10"])
        #expect(output.records.first?.address == "Two Lines")
        #expect(output.records.last?.line == 4)
        #expect(output.warnings.map { "\($0.line) \($0.code.rawValue) \($0.message)" }
            == ["2 folded_text address had a line break, folded to one space"])
        #expect(output.rejects.map { "\($0.line) \($0.key) \($0.reason.rawValue) \($0.field ?? "") \($0.message)" } == [
            "5 11 bad_text name name has a line break",
            "7 12 bad_text name name has the control character \\u{1}",
        ])
    }

    @Test func duplicateAndMissingIdsAreRejected() {
        let output = parse("id,name,region,latitude,longitude\n1,A,X,59,24\n1,B,X,59,24\n,C,X,59,24\n")
        #expect(output.rejects.map(\.reason) == [.duplicateKey, .missingField])
    }

    @Test func headerWithoutCoordinatesIsNotARegistry() {
        let directory = TemporaryDirectory()
        let path = directory.write("x.csv", text: "id,name,region\n1,A,X\n")
        #expect(!adapter.recognises(try! FeedFile.open(path: path, name: "x.csv")))
    }
}
