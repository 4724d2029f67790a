import Benchmark
import Foundation
import IngestAdapters
import IngestCore
import IngestGenerator

/// Each stock-feed parser alone, one thread, over one generated feed of
/// 20,000 items: the feed's MB per second of parsing (custom metric
/// `MB/s`), wall clock and mallocs per parse. What a full run cannot show:
/// which format's parser holds the parse threads back.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, ParserMetrics.megabytesPerSecond],
        warmupIterations: 1,
        maxDuration: .seconds(3),
        maxIterations: 50
    )
    let feeds = ParserFeeds.generate()
    for feed in feeds.all {
        Benchmark("\(feed.format) parse") { benchmark in
            for _ in benchmark.scaledIterations {
                let start = ContinuousClock.now
                var output = FeedOutput<StockOffer>(file: feed.file.name)
                blackHole(feed.adapter.parse(feed.file, into: &output))
                precondition(output.failure == nil && output.accepted > 0, "\(feed.file.name) did not parse: \(String(describing: output.failure))")
                let elapsed = start.duration(to: .now)
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                benchmark.measurement(ParserMetrics.megabytesPerSecond, Int(Double(feed.file.size) / max(seconds, 1e-9) / 1e6))
            }
        }
    }
}

enum ParserMetrics {
    static let megabytesPerSecond = BenchmarkMetric.custom("MB/s", polarity: .prefersLarger, useScalingFactor: false)
}

/// One generated feed per format, written once into a temporary folder by
/// the project's own generator (the same one `make bench` uses).
struct ParserFeeds {
    struct Feed {
        var format: String
        var file: FeedFile
        var adapter: any StockFeedAdapter
    }

    var all: [Feed]

    static func generate() -> ParserFeeds {
        let root = NSTemporaryDirectory() + "ingest-parser-benchmarks-\(getpid())"
        let rules = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../mappings/patient_price_rules.toml").standardized.path
        var feeds: [Feed] = []
        for format in [GeneratedFormat.noom, .rax, .csv] {
            let out = "\(root)/\(format.rawValue)"
            do {
                _ = try FeedGenerator(options: .init(pharmacies: 1, items: 20_000, seed: 7, formats: [format], rulesSource: rules))
                    .generate(into: out)
                let catalog = AdapterCatalog([RAXStockAdapter(), NoomStockAdapter()]
                    + AdapterCatalog.mappedAdapters(try MappingLoader.loadAll(directory: "\(out)/mappings")))
                let names = try FileManager.default.contentsOfDirectory(atPath: "\(out)/feeds").sorted()
                for name in names {
                    let file = try FeedFile.open(path: "\(out)/feeds/\(name)", name: name)
                    if let adapter = try catalog.claim(file) as? any StockFeedAdapter {
                        feeds.append(Feed(format: format.rawValue, file: file, adapter: adapter))
                    }
                }
            } catch {
                fatalError("cannot generate the \(format) feed: \(error)")
            }
        }
        return ParserFeeds(all: feeds)
    }
}
