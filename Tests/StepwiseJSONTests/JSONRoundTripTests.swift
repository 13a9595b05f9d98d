import StepwiseJSON
import Testing

/// Lossless round trips: `decode(encode(v))` is `v` exactly for seeded random values.
struct JSONRoundTripTests {
    static let layouts: [Named<JSONWriter.Options>] = [
        Named("compact", []),
        Named("pretty", .prettyPrinted),
    ]

    /// Same cases, doubles bit for bit, integers exact, strings byte for byte, key order kept.
    @Test(arguments: 0..<40, layouts)
    func decodeOfEncodeIsIdentity(seed: Int, layout: Named<JSONWriter.Options>) throws {
        var random = RandomJSON(seed: UInt64(seed))
        for _ in 0..<25 {
            let value = random.value()
            let bytes = JSONWriter.bytes(value, options: layout.value)
            let decoded = try JSONParser.parse(bytes, limits: .init(maxDepth: 64))
            #expect(identical(decoded, value), "seed \(seed): \(JSONWriter.string(value))")
            #expect(decoded == value)
            #expect(decoded.hashValue == value.hashValue)
            // Encoding is deterministic: the decoded value encodes to the same bytes.
            #expect(JSONWriter.bytes(decoded, options: layout.value) == bytes)
        }
    }

    @Test(arguments: 0..<20)
    func sortedKeysKeepsTheValue(seed: Int) throws {
        var random = RandomJSON(seed: UInt64(seed) &+ 1_000)
        for _ in 0..<25 {
            let value = random.value()
            let sorted = try JSONParser.parse(JSONWriter.bytes(value, options: .sortedKeys))
            #expect(sorted == value)
            #expect(Self.keysAreSorted(sorted))
            // Sorting is idempotent and independent of insertion order.
            #expect(JSONWriter.bytes(sorted, options: .sortedKeys) == JSONWriter.bytes(value, options: .sortedKeys))
        }
    }

    /// Every finite double is written in a form that reads back to the same bits, and no longer
    /// than Swift's own shortest representation.
    @Test(arguments: 0..<4)
    func doublesAreShortestAndExact(seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed) &+ 7)
        for _ in 0..<5_000 {
            let d = Double(bitPattern: rng.next())
            guard d.isFinite else { continue }
            let text = JSONWriter.string(.double(d))
            #expect(text == d.description)
            let back = try JSONParser.parse(text)
            #expect(identical(back, .double(d)), "\(text)")
        }
    }

    static func keysAreSorted(_ value: JSONValue) -> Bool {
        switch value {
        case .array(let a): return a.allSatisfy(keysAreSorted)
        case .object(let o):
            let keys = o.keys
            let ordered = zip(keys, keys.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            return ordered && o.values.allSatisfy(keysAreSorted)
        default: return true
        }
    }
}
