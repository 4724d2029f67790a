// swift-tools-version: 6.1
// libFuzzer harness for every feed parser: a package of its own so normal
// builds never see a target without a `main`. Built by `make fuzz` with
// `-sanitize=fuzzer,address`.
import PackageDescription

let package = Package(
    name: "IngestFuzz",
    dependencies: [.package(name: "ingest", path: "..")],
    targets: [
        .executableTarget(
            name: "IngestFuzz",
            dependencies: [.product(name: "IngestAdaptersForFuzzing", package: "ingest")]
        ),
    ]
)
