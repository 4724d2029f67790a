// swift-tools-version: 6.1
// Micro benchmarks of each stock-feed parser (ordo-one/benchmark): a package
// of its own, like Fuzz/, so `make build` and `make test` never build the
// benchmark tool. Run with `make bench-parsers`.
import PackageDescription

let package = Package(
    name: "IngestBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ingest", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "ParserBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "IngestForBenchmarks", package: "ingest"),
            ],
            path: "Benchmarks/ParserBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
