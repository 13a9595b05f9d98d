/// A seeded SplitMix64 generator: the only source of randomness for `uuid()` and `random()`.
///
/// The engine injects one per evaluation so that runs are reproducible. Not thread-safe: use
/// one source per thread of evaluation.
///
/// ```swift
/// let source = RandomSource(seed: 42)
/// source.next()   // the same value for every run seeded with 42
/// ```
public final class RandomSource {
    private var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits. Never fails.
    public func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
