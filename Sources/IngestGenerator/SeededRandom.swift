/// SplitMix64: small, fast and the same on every platform and Swift version,
/// which the standard library's generators do not promise. Every generated
/// byte comes from one of these, seeded from `--seed` and a stream number, so
/// the same options always give the same files.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64, stream: UInt64 = 0) {
        state = seed &* 0x9E37_79B9_7F4A_7C15 &+ stream &* 0xD1B5_4A32_D192_ED03 &+ 0x2545_F491_4F6C_DD1D
        _ = next()
    }

    /// A generator whose state is `rawState` itself, unmixed: the tests'
    /// model worlds were seeded this way before this type was shared, and a
    /// seed that once failed must replay the same world.
    public init(rawState: UInt64) {
        state = rawState
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range`, without modulo bias worth caring about here.
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < p
    }

    public mutating func pick<T>(_ values: [T]) -> T { values[int(0...(values.count - 1))] }
}
