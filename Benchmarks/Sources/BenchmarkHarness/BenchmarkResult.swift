/// What one benchmark produced in one run; the `--json` output is an array of these.
public struct BenchmarkResult: Sendable, Codable {
    /// One target and whether it was met.
    public struct TargetOutcome: Sendable, Codable {
        /// What the target asks (`>= 3x faster than baseline`).
        public var target: String
        /// Whether it was met; `nil` when the figure was not available.
        public var met: Bool?
        /// The figure compared (`4.21x faster`).
        public var actual: String?
    }

    /// The benchmark's name.
    public var name: String
    /// Time or peak memory.
    public var metric: Benchmark.Metric
    /// The baseline's name, if any.
    public var baselineName: String?
    /// Timing of the benchmark (time metric).
    public var time: TimeFigures?
    /// Timing of the baseline (time metric).
    public var baselineTime: TimeFigures?
    /// Peak memory of the benchmark (memory metric).
    public var memory: MemoryFigures?
    /// Peak memory of the baseline (memory metric).
    public var baselineMemory: MemoryFigures?
    /// Baseline over benchmark: median times, or peak memory above start. Above 1 means the
    /// benchmark is faster or smaller.
    public var ratio: Double?
    /// The targets with their outcomes.
    public var targets: [TargetOutcome]
    /// Why the benchmark could not be measured, if it could not.
    public var error: String?
}
