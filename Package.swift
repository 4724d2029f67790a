// swift-tools-version: 6.1
import PackageDescription

/// Release builds skip Swift's run-time exclusivity checks: the parsers and
/// the writer touch class state millions of times a run, and the checks cost
/// about a tenth of their CPU (perf, `make bench`). Debug builds and tests
/// keep them.
let hotPathSettings: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "ingest",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "ingest", targets: ["IngestCLI"]),
        // The reference read API (READ_API.md): a binary of its own, so the importer carries no web server.
        .executable(name: "ingest-serve", targets: ["IngestServe"]),
        // For the libFuzzer harness in Fuzz/ only.
        .library(name: "IngestAdaptersForFuzzing", targets: ["IngestAdapters"]),
        // For the parser micro benchmarks in Benchmarks/ only.
        .library(name: "IngestForBenchmarks", targets: ["IngestAdapters", "IngestGenerator"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/onevcat/Rainbow", from: "4.2.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
    ],
    targets: [
        // C libraries, reached through their C APIs directly (see each shim.h).
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CCSV",
            providers: [.apt(["libcsv-dev"])]
        ),
        .systemLibrary(
            name: "CYAJL",
            providers: [.apt(["libyajl-dev"])]
        ),
        // glibc's malloc.h (mallopt), for ingest-serve's answer buffers.
        .systemLibrary(name: "CMalloc"),

        // Settings from /etc/ingest/ingest.toml, --config and INGEST_* as arguments before the user's.
        .target(
            name: "IngestSettings",
            dependencies: [.product(name: "TOMLKit", package: "TOMLKit"), .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Domain values shared by every layer: money, codes, records, rejects.
        .target(
            name: "IngestCore",
            dependencies: [],
            swiftSettings: hotPathSettings
        ),
        // Feed adapters: one file in, canonical records and rejects out.
        .target(
            name: "IngestAdapters",
            dependencies: [
                "IngestCore", "CCSV", "CLibXML2", "CYAJL",
                .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            swiftSettings: hotPathSettings
        ),
        // SQLite snapshot: schema, bulk writer, publisher, manifest.
        .target(
            name: "IngestSnapshot",
            dependencies: [
                "IngestCore", "CSQLite",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: hotPathSettings
        ),
        // The run: plan feeds, parse in parallel, validate, feed one writer, publish.
        .target(
            name: "IngestPipeline",
            dependencies: [
                "IngestCore", "IngestAdapters", "IngestSnapshot",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: hotPathSettings
        ),
        // The run as one self-contained HTML page (swift-mustache, inline CSS and SVG).
        .target(
            name: "IngestHTMLReport",
            dependencies: [
                "IngestCore", "IngestPipeline", "IngestSnapshot",
                .product(name: "Mustache", package: "swift-mustache"),
            ]
        ),
        // Deterministic feeds folders of any size, with known faults and their ground truth.
        .target(
            name: "IngestGenerator",
            dependencies: ["IngestCore"]
        ),
        .executableTarget(
            name: "IngestCLI",
            dependencies: [
                "IngestPipeline", "IngestAdapters", "IngestSnapshot", "IngestCore", "IngestGenerator", "IngestHTMLReport", "IngestSettings",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Rainbow", package: "Rainbow"),
            ],
            plugins: ["BuildInfoPlugin"]
        ),
        // READ_API.md's queries answered from an open snapshot, and following `current` as it moves.
        .target(
            name: "IngestReadAPI",
            dependencies: ["IngestCore", "IngestSnapshot", .product(name: "HeapModule", package: "swift-collections")]
        ),
        // The read API over HTTP (Hummingbird 2).
        .executableTarget(
            name: "IngestServe",
            dependencies: [
                "IngestReadAPI", "IngestSnapshot", "IngestCore", "IngestSettings", "CMalloc",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            // The OpenAPI document is a file of its own, compiled into the binary.
            resources: [.embedInCode("openapi.json")],
            plugins: [.plugin(name: "BuildInfoPlugin")]
        ),
        // The build's commit, for --version and the manifest's importer_version.
        .plugin(name: "BuildInfoPlugin", capability: .buildTool()),

        .target(
            name: "IngestTestSupport",
            dependencies: ["IngestGenerator", "CSQLite"],
            path: "Tests/IngestTestSupport"
        ),
        .testTarget(name: "IngestCoreTests", dependencies: [
            "IngestCore", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "IngestAdaptersTests", dependencies: ["IngestAdapters", "IngestTestSupport"]),
        .testTarget(name: "IngestSnapshotTests", dependencies: ["IngestSnapshot", "IngestTestSupport", "CSQLite"]),
        .testTarget(name: "IngestPipelineTests", dependencies: ["IngestPipeline", "IngestGenerator", "IngestReadAPI", "IngestTestSupport", "CSQLite"]),
        .testTarget(name: "IngestCLITests", dependencies: ["IngestCLI", "IngestHTMLReport", "IngestPipeline", .product(name: "Mustache", package: "swift-mustache"), .product(name: "ArgumentParser", package: "swift-argument-parser"), "IngestCore", "IngestSettings", "IngestGenerator", "IngestTestSupport", "IngestSnapshot", "CSQLite", "CLibXML2"]),
        .testTarget(name: "IngestReadAPITests", dependencies: ["IngestReadAPI", "IngestServe", "IngestSnapshot", "IngestPipeline", "IngestCore", "IngestGenerator", "IngestTestSupport"]),
        .testTarget(name: "IngestGeneratorTests", dependencies: ["IngestGenerator", "IngestPipeline", "IngestSnapshot", "IngestTestSupport", "CSQLite"]),
    ]
)
