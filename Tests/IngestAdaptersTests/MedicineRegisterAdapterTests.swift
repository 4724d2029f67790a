import IngestCore
import IngestTestSupport
import Testing
@testable import IngestAdapters

@Suite struct MedicineRegisterAdapterTests {
    private let directory = TemporaryDirectory()
    static let header = "package_code;name;form;strength;pack_size;atc;active_substance;leaflet_url;spc_url;prescription\n"

    private func parse(_ text: String, name: String = "medicine_register_2011-05-01.csv") throws -> FeedOutput<MedicinePackage> {
        let file = try FeedFile.open(path: directory.write(name, text: text), name: name)
        #expect(MedicineRegisterAdapter().recognises(file))
        let output = MedicineRegisterAdapter().parse(file)
        #expect(output.read == output.accepted + output.rejected)
        return output
    }

    @Test func theSpecExampleReadsBackWithItsQuotedRow() throws {
        let output = try parse(try String(contentsOfFile: RepositoryFiles.feed("medicine_register_2011-05-01.csv"), encoding: .utf8))
        #expect(output.failure == nil && output.rejected == 0)
        #expect(output.records.map(\.packageCode) == ["1144976", "1012341", "1012352", "1144987"])
        #expect(output.records[3].spcURL == nil && output.records[3].prescription == "Rx" && output.records[3].packSize == "20")
        #expect(output.records[1].leafletURL == "https://register.example/leaflet/1012341.pdf")
        #expect(MedicineRegisterAdapter.validFrom(fileName: "medicine_register_2011-05-01.csv") == "2011-05-01")
    }

    @Test func badRowsAreRejectedWithTheirReasonFieldAndKey() throws {
        let output = try parse(Self.header + """
            1144975;BAD CHECK DIGIT;;;;;;https://x.example/a.pdf;;Rx
            1144976;NOT RX;;;;;;https://x.example/a.pdf;;maybe
            1012341;FILE URL;;;;;;file:///etc/passwd;;OTC
            1012352;SCRIPT;;;;;;https://x.example/a.pdf;javascript:alert(1);OTC
            1144987;BAD ATC;;;;X9;;;;Rx
            1144987;GOOD;;;;j01aa02;;http://x.example/b.pdf;;Rx
            1144987;AGAIN;;;;;;;;Rx

            """)
        #expect(output.rejects.map { [$0.key, $0.reason.rawValue, $0.field ?? ""] } == [
            ["1144975", "bad_package_code", "package_code"],
            ["1144976", "bad_prescription", "prescription"],
            ["1012341", "bad_url", "leaflet_url"],
            ["1012352", "bad_url", "spc_url"],
            ["1144987", "bad_atc_code", "atc"],
            ["1144987", "duplicate_key", "package_code"],
        ])
        #expect(output.records.map(\.name) == ["GOOD"])
        #expect(output.records.first?.atc == "J01AA02")
    }

    @Test func aHeaderWithoutItsRequiredColumnsIsNotARegister() throws {
        let name = "medicine_register_2011-05-01.csv"
        let file = try FeedFile.open(path: directory.write(name, text: "package_code;name\n1144976;X\n"), name: name)
        #expect(!MedicineRegisterAdapter().recognises(file))
    }
}
