/// A goal for a benchmark, printed beside its figures with whether this run met it.
///
/// Targets are never asserted: timings on shared machines swing by 30–50 %, so a missed target
/// is a signal to look, not a failure.
public enum Target: Sendable {
    /// The benchmark's median is at least `factor` times shorter than the baseline's.
    case fasterThanBaseline(atLeast: Double)
    /// The benchmark's median is no longer than `factor` times the baseline's.
    case withinFactorOfBaseline(Double)
    /// At least this many operations per second (from the median).
    case opsPerSecond(atLeast: Double)
    /// Peak resident memory at most this many bytes above the resident memory at the start.
    case peakMemoryAboveStart(atMost: Int)

    /// What the target asks, for a person: `>= 3x faster than baseline`.
    public var description: String {
        switch self {
        case .fasterThanBaseline(let factor):
            factor == 1 ? "no slower than baseline" : ">= \(Format.factor(factor)) faster than baseline"
        case .withinFactorOfBaseline(let factor):
            "within \(Format.factor(factor)) of baseline"
        case .opsPerSecond(let ops):
            ">= \(Format.rate(ops))"
        case .peakMemoryAboveStart(let bytes):
            "peak < \(Format.bytes(bytes)) over start"
        }
    }

    /// Whether the figures meet the target, with the figure compared; `nil` when the figure
    /// needed is missing (no baseline, memory not measurable on this system).
    func check(subject: TimeFigures?, baseline: TimeFigures?, memory: MemoryFigures?) -> (met: Bool, actual: String)? {
        switch self {
        case .fasterThanBaseline(let factor):
            guard let s = subject, let b = baseline else { return nil }
            let speedup = b.medianNanoseconds / s.medianNanoseconds
            return (speedup >= factor, Format.ratio(speedup))
        case .withinFactorOfBaseline(let factor):
            guard let s = subject, let b = baseline else { return nil }
            let slowdown = s.medianNanoseconds / b.medianNanoseconds
            return (slowdown <= factor, "\(Format.factor(slowdown)) the baseline's time")
        case .opsPerSecond(let ops):
            guard let s = subject else { return nil }
            return (s.opsPerSecond >= ops, Format.rate(s.opsPerSecond))
        case .peakMemoryAboveStart(let bytes):
            guard let m = memory else { return nil }
            return (m.peakAboveStartBytes <= bytes, Format.bytes(m.peakAboveStartBytes))
        }
    }
}
