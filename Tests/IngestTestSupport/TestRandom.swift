import Foundation
import IngestGenerator

/// The generator a test draws its random choices from. A test names its
/// own default seed, so CI runs the same choices every time; setting
/// `INGEST_TEST_SEED` tries others. `replay` goes into every failure
/// message, so a failure found under another seed can be run again.
public struct TestRandom: RandomNumberGenerator, Sendable {
    public let seed: UInt64
    private var generator: SeededRandom

    public init(defaultSeed: UInt64) {
        // Absent or unparsable: the test's own seed, the normal case in CI.
        let chosen = ProcessInfo.processInfo.environment["INGEST_TEST_SEED"].flatMap { UInt64($0) } ?? defaultSeed
        seed = chosen
        generator = SeededRandom(seed: chosen)
    }

    public mutating func next() -> UInt64 { generator.next() }

    /// "seed 7 (INGEST_TEST_SEED=7 replays it)".
    public var replay: String { "seed \(seed) (INGEST_TEST_SEED=\(seed) replays it)" }
}
