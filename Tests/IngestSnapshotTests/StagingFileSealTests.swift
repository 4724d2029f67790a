import Foundation
import IngestTestSupport
import Testing
@testable import IngestSnapshot

@Suite struct StagingFileSealTests {
    @Test func reportsTheFilesSizeAndDigest() throws {
        let temporary = TemporaryDirectory()
        let path = "\(temporary.path)/staging.sqlite"
        try Data("abc".utf8).write(to: URL(fileURLWithPath: path))
        let sealed = try StagingFileSeal(path: path).wait()
        #expect(sealed.size == 3)
        // SHA-256("abc"), FIPS 180-2's first example.
        #expect(sealed.sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func aFileThatCannotBeSyncedIsAnError() {
        let temporary = TemporaryDirectory()
        #expect(throws: (any Error).self) { try StagingFileSeal(path: "\(temporary.path)/missing.sqlite").wait() }
    }
}
