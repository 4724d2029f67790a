import IngestGenerator
import IngestTestSupport
@testable import IngestPipeline

/// A clean generated world imported as one night: the feeds, mappings and
/// snapshots under `temporary`, the reject limit the ground truth asks for.
enum GeneratedNight {
    static func imported(into temporary: TemporaryDirectory, pharmacies: Int, items: Int, seed: UInt64,
                         formats: [GeneratedFormat]) throws -> RunReport {
        let truth = try FeedGenerator(options: .init(pharmacies: pharmacies, items: items, seed: seed, formats: formats, badRate: 0,
                                                     rulesSource: "\(RepositoryFiles.mappingsDirectory)/patient_price_rules.toml"))
            .generate(into: temporary.path)
        var options = ImportOptions(feedsDirectory: "\(temporary.path)/feeds", snapshotsDirectory: "\(temporary.path)/s",
                                    mappingsDirectory: "\(temporary.path)/mappings", parseThreads: 2)
        options.gates.maxRejectRatePercent = truth.maxRejectRatePercent
        return try ImportRun(options: options).run()
    }
}
