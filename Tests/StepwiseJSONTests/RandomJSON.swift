import StepwiseJSON

/// Builds seeded random JSON values for round-trip tests: extreme integers, doubles of every
/// kind (subnormal, huge, negative zero, integral), strings with escapes, control characters,
/// non-BMP and combining characters, and objects with many keys in random order.
struct RandomJSON {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func value(depth: Int = 0) -> JSONValue {
        let pick = Int.random(in: 0..<(depth >= 5 ? 6 : 9), using: &rng)
        switch pick {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2, 3: return .integer(integer())
        case 4: return .double(double())
        case 5: return .string(string())
        case 6, 7:
            return .array((0..<Int.random(in: 0...6, using: &rng)).map { _ in value(depth: depth + 1) })
        default:
            var object = JSONObject()
            // Sometimes past the hash-index threshold.
            let count = Bool.random(using: &rng) ? Int.random(in: 0...5, using: &rng) : Int.random(in: 10...20, using: &rng)
            for _ in 0..<count {
                let key = string()
                if object[key] == nil { object[key] = value(depth: depth + 1) }
            }
            return .object(object)
        }
    }

    mutating func integer() -> Int64 {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return [Int64.min, .max, 0, -1, 1, Int64.min + 1, .max - 1][Int.random(in: 0..<7, using: &rng)]
        case 1: return Int64.random(in: -1000...1000, using: &rng)
        default: return Int64(bitPattern: rng.next()) >> Int64.random(in: 0...63, using: &rng)
        }
    }

    mutating func double() -> Double {
        switch Int.random(in: 0..<8, using: &rng) {
        case 0:
            let specials: [Double] = [
                0, -0.0, 1, -1, 0.1, 0.5, 1e-7, 1e21, 1e22, 1e23, .pi, .leastNonzeroMagnitude, .leastNormalMagnitude,
                .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 9_007_199_254_740_992, 9_223_372_036_854_775_808,
            ]
            return specials[Int.random(in: 0..<specials.count, using: &rng)]
        case 1: return Double(Int.random(in: -1_000_000...1_000_000, using: &rng))
        case 2: return Double(Int.random(in: -100_000...100_000, using: &rng)) / 100
        default:
            // Any finite bit pattern, subnormals included.
            while true {
                let d = Double(bitPattern: rng.next())
                if d.isFinite { return d }
            }
        }
    }

    mutating func string() -> String {
        let alphabet: [Unicode.Scalar] = [
            "a", "b", "Z", "0", " ", "\"", "\\", "/", "\u{0}", "\u{1}", "\u{8}", "\t", "\n", "\u{B}", "\u{C}",
            "\r", "\u{1F}", "\u{7F}", "\u{80}", "é", "\u{301}", "€", "\u{2028}", "\u{FEFF}", "\u{FFFF}",
            "😀", "\u{10FFFF}", "~",
        ]
        var s = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &rng) {
            if Int.random(in: 0..<4, using: &rng) == 0 {
                // Any scalar.
                while true {
                    if let u = Unicode.Scalar(UInt32.random(in: 0...0x10FFFF, using: &rng)) {
                        s.append(u)
                        break
                    }
                }
            } else {
                s.append(alphabet[Int.random(in: 0..<alphabet.count, using: &rng)])
            }
        }
        return String(s)
    }
}
