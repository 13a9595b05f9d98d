/// Human-readable figures: times, rates, sizes and ratios.
enum Format {
    /// `850 ns`, `12.3 µs`, `4.56 ms`, `1.20 s`.
    static func time(_ nanoseconds: Double) -> String {
        switch nanoseconds {
        case ..<1_000: fixed(nanoseconds, nanoseconds < 10 ? 2 : 1) + " ns"
        case ..<1_000_000: fixed(nanoseconds / 1e3, 2) + " µs"
        case ..<1_000_000_000: fixed(nanoseconds / 1e6, 2) + " ms"
        default: fixed(nanoseconds / 1e9, 2) + " s"
        }
    }

    /// `512/s`, `12.3 k/s`, `5.07 M/s`.
    static func rate(_ perSecond: Double) -> String {
        switch perSecond {
        case ..<1_000: fixed(perSecond, 0) + "/s"
        case ..<1_000_000: fixed(perSecond / 1e3, 1) + " k/s"
        default: fixed(perSecond / 1e6, 2) + " M/s"
        }
    }

    /// `812 KiB`, `12.3 MiB`.
    static func bytes(_ count: Int) -> String {
        let b = Double(count)
        if b < 1024 * 1024 { return fixed(b / 1024, 0) + " KiB" }
        return fixed(b / (1024 * 1024), 1) + " MiB"
    }

    /// `3x`, `2.5x`.
    static func factor(_ x: Double) -> String {
        x == x.rounded() && x < 1e6 ? "\(Int(x))x" : fixed(x, 2) + "x"
    }

    /// A baseline-over-subject ratio in words: `4.21x faster`, `1.32x slower`.
    static func ratio(_ speedup: Double) -> String {
        speedup >= 1 ? fixed(speedup, 2) + "x faster" : fixed(1 / speedup, 2) + "x slower"
    }

    /// `value` with `digits` decimals, without Foundation.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int(scaled / scale)
        let fraction = Int(scaled - Double(whole) * scale)
        var text = (value < 0 && scaled != 0 ? "-" : "") + String(whole)
        if digits > 0 {
            let f = String(fraction)
            text += "." + String(repeating: "0", count: max(0, digits - f.count)) + f
        }
        return text
    }

    /// `text` padded with spaces on the left (`right: true`) or right to `width` characters.
    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return right ? padding + text : text + padding
    }
}
