import StepwiseJSON
import Testing

/// `JSONKeySet` and `JSONObject.forEachKey(notIn:)`: membership by the object's key comparison,
/// short and long names alike.
struct JSONKeySetTests {
    static let long = String(repeating: "x", count: 20)

    @Test func membership() {
        let set: JSONKeySet = ["type", "id", "", "handler_with_a_long_name", "é", Self.long]
        for name in ["type", "id", "", "handler_with_a_long_name", "é", Self.long] {
            #expect(set.contains(name), "\(name)")
        }
        // Same length, first and last eight bytes, different middle: still told apart.
        let lookalike = "handler_with_a_LONG_name"
        #expect(!set.contains(lookalike))
        for name in ["typ", "types", "Type", "e\u{301}", String(repeating: "x", count: 19), "handler"] {
            #expect(!set.contains(name), "\(name)")
        }
        #expect(!JSONKeySet([]).contains(""))
    }

    @Test("forEachKey(notIn:) visits unknown names in insertion order")
    func unknownNames() {
        let object: JSONObject = ["type": "step", "zeta": 1, "id": "a", "alpha": 2, "handler_with_a_long_name": 3]
        var seen: [String] = []
        object.forEachKey(notIn: ["type", "id", "handler_with_a_long_name"]) { seen.append($0) }
        #expect(seen == ["zeta", "alpha"])
        var all: [String] = []
        object.forEachKey(notIn: []) { all.append($0) }
        #expect(all == object.keys)
    }
}
