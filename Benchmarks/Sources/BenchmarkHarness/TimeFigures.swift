/// The timing of one side of a benchmark: per-operation median and 90th percentile over the
/// samples, each sample being the mean of one batch of calls.
public struct TimeFigures: Sendable, Codable, Hashable {
    /// Median time per operation, in nanoseconds.
    public var medianNanoseconds: Double
    /// 90th-percentile time per operation, in nanoseconds.
    public var p90Nanoseconds: Double
    /// Operations per second at the median.
    public var opsPerSecond: Double
    /// Number of samples taken.
    public var samples: Int
    /// Calls per sample.
    public var iterationsPerSample: Int

    /// Figures from per-operation sample times.
    ///
    /// - Parameters:
    ///   - perOperation: each sample's batch time divided by its call count, in nanoseconds.
    ///   - iterationsPerSample: calls per sample.
    init(perOperation: [Double], iterationsPerSample: Int) {
        let sorted = perOperation.sorted()
        medianNanoseconds = Self.percentile(sorted, 0.5)
        p90Nanoseconds = Self.percentile(sorted, 0.9)
        opsPerSecond = medianNanoseconds > 0 ? 1e9 / medianNanoseconds : .infinity
        samples = sorted.count
        self.iterationsPerSample = iterationsPerSample
    }

    /// Linear interpolation between closest ranks.
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = p * Double(sorted.count - 1)
        let low = Int(rank.rounded(.down))
        let high = min(low + 1, sorted.count - 1)
        return sorted[low] + (sorted[high] - sorted[low]) * (rank - Double(low))
    }
}

/// Peak resident memory of one side of a memory benchmark.
public struct MemoryFigures: Sendable, Codable, Hashable {
    /// Resident memory just before the operation, in bytes (`VmRSS`).
    public var startBytes: Int
    /// Peak resident memory during the operation, in bytes (`VmHWM` after a reset).
    public var peakBytes: Int
    /// `peakBytes - startBytes`.
    public var peakAboveStartBytes: Int { max(0, peakBytes - startBytes) }
}
