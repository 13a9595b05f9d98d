public import Stepwise

/// Round-trip checks for values that must be valid JSON.
public enum JSONInvariants {
    /// Every output of ``JSONWriter`` for `value` parses back to an equal value, and writing
    /// again gives the same bytes.
    ///
    /// - Parameters:
    ///   - value: a value the code under test produced or accepted.
    ///   - what: names the value in the failure message.
    public static func checkRoundTrip(_ value: JSONValue, _ what: String) {
        // A value built from shared references (a list literal of 800 references to a large
        // array) can be huge; writing it three times would only measure the writer.
        guard nodeCount(value, upTo: 100_000) < 100_000 else { return }
        let lifted = JSONParser.Limits(maxDepth: 4096)
        for options in [JSONWriter.Options(), .sortedKeys, .prettyPrinted] {
            let written = JSONWriter.bytes(value, options: options)
            let reparsed: JSONValue
            do {
                reparsed = try JSONParser.parse(written, limits: lifted)
            } catch {
                fuzzFailure(
                    "\(what): writer output (options \(options.rawValue)) does not parse: \(error); "
                        + "output \(String(decoding: written.prefix(200), as: UTF8.self))")
            }
            fuzzCheck(reparsed == value, "\(what): writer output (options \(options.rawValue)) parses to another value")
            fuzzCheck(
                JSONWriter.bytes(reparsed, options: options) == written,
                "\(what): writing the reparsed value (options \(options.rawValue)) gives other bytes")
        }
    }

    /// The number of values in `value`, counting stops at `limit`. Iterative.
    public static func nodeCount(_ value: JSONValue, upTo limit: Int) -> Int {
        var count = 0
        var stack = [value]
        while let v = stack.popLast(), count < limit {
            count += 1
            switch v {
            case .array(let a): stack.append(contentsOf: a.prefix(limit - count))
            case .object(let o): for (_, e) in o where stack.count < limit { stack.append(e) }
            default: break
            }
        }
        return count
    }
}
