/// Seconds written as a JSON float, converted to whole milliseconds (SEMANTICS §1.4: "Fractional
/// ms are truncated").
///
/// The conversion reads the number's shortest decimal form, not its binary value: `1.001` is
/// stored as 1.000999…, so `1.001 * 1000` truncated would be 1000 ms where the author wrote
/// 1001. Shifting the decimal point of the digits the author wrote is exact.
///
/// ```swift
/// FractionalSeconds.milliseconds(1.001)  // 1001
/// FractionalSeconds.milliseconds(1.5)    // 1500
/// FractionalSeconds.milliseconds(0.0005) // 0
/// ```
enum FractionalSeconds {
    /// The whole milliseconds in `seconds` (finite, not negative); `.infinity` when the result
    /// has more digits than a `Double` holds exactly (it is past every duration limit then).
    static func milliseconds(_ seconds: Double) -> Double {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        // The shortest form that reads back as the same Double: "1.001", "1e-05", "1.5e+20".
        let text = "\(seconds)"
        var mantissa = Substring(text)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<e]
            exponent = Int(text[text.index(after: e)...]) ?? 0
        }
        let point = mantissa.firstIndex(of: ".")
        let integerDigits = point.map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count
        let digits = mantissa.filter { $0 != "." }
        // Digits before the decimal point of seconds × 1000.
        let wholeDigits = integerDigits + exponent + 3
        guard wholeDigits > 0 else { return 0 }
        guard wholeDigits <= 17 else { return .infinity }
        var whole = 0.0
        for (index, digit) in digits.enumerated() where index < wholeDigits {
            whole = whole * 10 + Double(digit.wholeNumberValue ?? 0)
        }
        for _ in 0..<max(0, wholeDigits - digits.count) { whole *= 10 }
        return whole
    }
}
