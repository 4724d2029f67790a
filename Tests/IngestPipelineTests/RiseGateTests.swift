import Foundation
import IngestCore
import IngestSnapshot
import IngestTestSupport
import Testing
@testable import IngestPipeline

/// FEEDS.md §12: gates on the rise of pharmacies and of pharmacies the
/// registry does not know, beside the falls. A chain export whose columns
/// went wrong once brought 176 phantom pharmacies to a deployment of 20.
@Suite struct RiseGateTests {
    @Test func risesAreMeasuredAgainstCurrentsPharmacies() {
        let catalogue = GateCatalog([CountRiseGate.pharmacies(maxRisePercent: 50), CountRiseGate.unregistered(maxRisePercent: 10)])
        func measureRises(newPharmacies: Int, currentPharmacies: Int, newUnregistered: Int, currentUnregistered: Int) -> [QualityGates.Measure] {
            catalogue.measure(NightCounts(offers: 0, pharmacies: newPharmacies, freshPharmacies: 0, unregisteredPharmacies: newUnregistered,
                                          currentOffers: 0, currentPharmacies: currentPharmacies, currentUnregisteredPharmacies: currentUnregistered))
        }
        let phantom = measureRises(newPharmacies: 196, currentPharmacies: 20, newUnregistered: 176, currentUnregistered: 0)
        #expect(phantom.map { "\($0.gate) \($0.current)→\($0.new) \($0.dropPercent) \($0.passed)" }
                == ["pharmacies_rise 20→196 880.0 false", "unregistered_pharmacies 0→176 880.0 false"])
        #expect(phantom[1].failure.description == "gate unregistered_pharmacies: 0 → 176 pharmacies not in the registry, a rise of 880.0 % of current's pharmacies (at most 10 % allowed, --max-unregistered-rise)")
        // A rise of five or fewer always passes; growth within the limits too.
        #expect(measureRises(newPharmacies: 9, currentPharmacies: 4, newUnregistered: 5, currentUnregistered: 0).allSatisfy { $0.passed })
        #expect(measureRises(newPharmacies: 260, currentPharmacies: 200, newUnregistered: 20, currentUnregistered: 2).allSatisfy { $0.passed })
        #expect(measureRises(newPharmacies: 20, currentPharmacies: 0, newUnregistered: 20, currentUnregistered: 0).isEmpty)
    }

    /// The second night brings a chain file naming twelve pharmacies nobody
    /// registered: nothing is published (`--force` would), current stays.
    @Test func phantomPharmaciesStopTheNight() throws {
        let temporary = TemporaryDirectory()
        let feeds = temporary.subdirectory("feeds")
        for file in try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.feedsDirectory) {
            try FileManager.default.copyItem(atPath: RepositoryFiles.feed(file), toPath: "\(feeds)/\(file)")
        }
        let snapshots = "\(temporary.path)/snapshots"
        func night(_ day: Int, force: Bool = false) throws -> RunReport {
            var options = ImportOptions(feedsDirectory: feeds, snapshotsDirectory: snapshots, mappingsDirectory: RepositoryFiles.mappingsDirectory,
                                        parseThreads: 2, asOf: Date(timeIntervalSince1970: 1_716_174_000 + Double(day) * 86_400))
            options.force = force
            return try ImportRun(options: options).run()
        }
        let first = try night(0)
        let version = try #require(first.publishedVersion)
        var chain = "\u{FEFF}aptiekas_kods;aptieka;preces_kods;nosaukums;razotajs;ATK;cena_LVL;atlikums;datums\n"
        for shop in 0..<12 { chain += "P\(800 + shop);Phantom;LV100231;PARACETAMOL;Grindeks;N02BE01;0,98;40;02.06.2013\n" }
        _ = temporary.write("feeds/zales24_export_2013-06-02.csv", text: chain)
        let second = try night(1)
        #expect(second.publishedVersion == nil)
        guard case .gates(let failures)? = second.blocked else {
            Issue.record("not blocked by gates: \(String(describing: second.blocked))")
            return
        }
        #expect(failures.map { "\($0.gate) \($0.current)→\($0.new)" } == ["pharmacies_rise 4→16", "unregistered_pharmacies 0→12"])
        #expect(try SnapshotDirectory(path: snapshots).currentVersion() == version)
        let forced = try night(1, force: true)
        #expect(forced.publishedVersion != nil && forced.forcedGates.map(\.gate) == ["pharmacies_rise", "unregistered_pharmacies"])
    }
}
