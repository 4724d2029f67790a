import IngestCore
import Testing
@testable import IngestReadAPI

/// An offer read from SQLite finds its pharmacy by the id column's bytes
/// (`PharmacyDirectory.index(ofID:)`): the same pharmacy the id's `String`
/// finds, for ids that are prefixes of each other, of other lengths, in
/// other scripts, repeated (the first wins), and none for an unknown id.
@Suite struct PharmacyIDLookupTests {
    @Test func theBytesOfAnIdFindThePharmacyItsTextFinds() {
        let ids = ["10000", "100", "1000", "9", "31461", "ÕIE-1", "OIE-1", "Z", "100", "a"]
        let rows = ids.enumerated().map { index, id in
            PharmacyRow(id: id, name: "APTEEK \(index)", region: "TALLINN", chainID: "", address: "", phone: "",
                        openHours: "", position: nil, lastRefresh: nil, itemCount: 0, stale: false)
        }
        let directory = PharmacyDirectory(rows)
        func lookUp(_ id: String) -> Int? { Array(id.utf8).withUnsafeBytes { directory.index(ofID: $0) } }
        for id in Set(ids) {
            #expect(lookUp(id) == directory.indexByID[id], "\(id)")
        }
        #expect(lookUp("100") == 1, "the first of two rows with one id")
        #expect(lookUp("ÕIE-1") == 5)
        for unknown in ["", "10", "1001", "100000", "ÕIE", "b", "31461 "] {
            #expect(lookUp(unknown) == nil, "\(unknown)")
        }
    }
}
