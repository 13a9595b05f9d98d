/// One benchmark: an operation, the baseline it is always measured against, and the targets
/// printed beside the figures.
///
/// A benchmark's ``body`` performs **one** operation; the harness calls it in batches, so it
/// should do nothing but the work being measured (build fixtures in ``setUp`` or in lazily
/// initialised `static let`s) and pass its result to ``blackHole(_:)`` so the optimiser
/// cannot drop it.
///
/// ```swift
/// Benchmark(
///     "json/decode-5k",
///     baseline: Baseline("JSONSerialization.jsonObject") { blackHole(try JSONSerialization.jsonObject(with: data)) },
///     targets: [.fasterThanBaseline(atLeast: 3)]
/// ) {
///     blackHole(try JSONParser.parse(bytes))
/// }
/// ```
public struct Benchmark {
    /// What a benchmark measures.
    public enum Metric: String, Sendable, Codable {
        /// Time per operation: median, p90 and operations per second.
        case time
        /// Peak resident memory above the process's resident memory before the operation, each
        /// side measured once per run in a fresh child process (Linux only).
        case peakMemory
    }

    /// Unique name, `area/what` (`json/decode-5k`); the command-line filter matches it.
    public var name: String
    /// Time or peak memory.
    public var metric: Metric
    /// The comparison run beside the body in the same run, if any.
    public var baseline: Baseline?
    /// Goals printed with the figures; never asserted.
    public var targets: [Target]
    /// Runs once before anything is measured (and, for ``Metric/peakMemory``, before the
    /// starting resident memory is read).
    public var setUp: () throws -> Void
    /// One operation.
    public var body: () throws -> Void

    /// Creates a benchmark.
    ///
    /// - Parameters:
    ///   - name: unique name, `area/what`.
    ///   - metric: time (default) or peak memory.
    ///   - baseline: the operation to compare against, measured in the same run.
    ///   - targets: goals to print beside the figures.
    ///   - setUp: preparation run once before measuring.
    ///   - body: one operation.
    public init(
        _ name: String,
        metric: Metric = .time,
        baseline: Baseline? = nil,
        targets: [Target] = [],
        setUp: @escaping () throws -> Void = {},
        body: @escaping () throws -> Void
    ) {
        self.name = name
        self.metric = metric
        self.baseline = baseline
        self.targets = targets
        self.setUp = setUp
        self.body = body
    }
}

/// The operation a benchmark is compared with: measured in the same run, interleaved with the
/// benchmark's own samples, so machine noise hits both alike.
public struct Baseline {
    /// What the baseline is (`JSONSerialization.jsonObject(with:)`).
    public var name: String
    /// One operation.
    public var body: () throws -> Void

    /// Creates a baseline.
    ///
    /// - Parameters:
    ///   - name: what the baseline is.
    ///   - body: one operation.
    public init(_ name: String, body: @escaping () throws -> Void) {
        self.name = name
        self.body = body
    }
}
