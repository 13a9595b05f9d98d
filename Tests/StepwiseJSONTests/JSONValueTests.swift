import StepwiseJSON
import Testing

/// `JSONValue` equality (numbers by value, objects ignore order), hashing consistent with it,
/// and the accessors.
struct JSONValueTests {
    static let equalPairs: [Named<(JSONValue, JSONValue)>] = [
        Named("1 == 1.0", (1, 1.0)),
        Named("0 == -0.0", (0, .double(-0.0))),
        Named("0.0 == -0.0", (0.0, .double(-0.0))),
        Named("-5 == -5.0", (-5, -5.0)),
        Named("Int64.min == -2^63 as double", (.integer(.min), .double(-9_223_372_036_854_775_808))),
        Named("2^53 integer == 2^53 double", (9_007_199_254_740_992, 9_007_199_254_740_992.0)),
        Named("[1,2] == [1.0,2.0]", ([1, 2], [1.0, 2.0])),
        Named("objects ignore key order", (["a": 1, "b": 2], ["b": 2.0, "a": 1])),
        Named("nested numbers by value", ([1, [2, ["a": [3]]]], [1.0, [2.0, ["a": [3.0]]]])),
        Named("big objects ignore key order", (bigObject(reversed: false), bigObject(reversed: true))),
        Named("null", (nil, nil)),
        Named("strings", ("é😀", "é😀")),
        Named("empty containers", ([[], [:]], [[], [:]])),
    ]

    static let unequalPairs: [Named<(JSONValue, JSONValue)>] = [
        Named("1 != 1.5", (1, 1.5)),
        Named("Int64.max != 2^63 as double", (.integer(.max), .double(9_223_372_036_854_775_808))),
        Named("2^53+1 integer != 2^53 double", (9_007_199_254_740_993, 9_007_199_254_740_992.0)),
        Named("'1' != 1", ("1", 1)),
        Named("true != 1", (true, 1)),
        Named("false != 0", (false, 0)),
        Named("null != false", (nil, false)),
        Named("'' != null", ("", nil)),
        Named("[] != {}", ([], [:])),
        Named("[1,2] != [2,1]", ([1, 2], [2, 1])),
        Named("[1] != [1,1]", ([1], [1, 1])),
        Named("missing member", (["a": 1], ["a": 1, "b": 2])),
        Named("different member value", (["a": 1, "b": 2], ["a": 1, "b": 3])),
        Named("different key", (["a": 1], ["b": 1])),
        Named("NFC != NFD (scalars differ)", ("\u{E9}", "e\u{301}")),
        Named("NFC key != NFD key", (["\u{E9}": 1], ["e\u{301}": 1])),
        Named("case differs", ("a", "A")),
    ]

    static func bigObject(reversed: Bool) -> JSONValue {
        var object = JSONObject()
        let indices = Array(0..<40)
        for i in reversed ? indices.reversed() : indices { object["k\(i)"] = .integer(Int64(i)) }
        return .object(object)
    }

    @Test(arguments: equalPairs)
    func equalValuesHashAlike(_ c: Named<(JSONValue, JSONValue)>) {
        let (a, b) = c.value
        #expect(a == b)
        #expect(b == a)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
    }

    @Test(arguments: unequalPairs)
    func unequalValues(_ c: Named<(JSONValue, JSONValue)>) {
        let (a, b) = c.value
        #expect(a != b)
        #expect(b != a)
        #expect(Set([a, b]).count == 2)
    }

    /// Equality is an equivalence relation and hashing agrees with it across seeded values
    /// mixed with their number-converted and reordered twins.
    @Test(arguments: 0..<10)
    func hashingIsConsistentWithEquality(seed: Int) {
        var random = RandomJSON(seed: UInt64(seed) &+ 500)
        var values: [JSONValue] = []
        for _ in 0..<30 {
            let v = random.value()
            values.append(v)
            values.append(Self.twin(of: v))
        }
        for a in values {
            #expect(a == a)
            for b in values where a == b {
                #expect(a.hashValue == b.hashValue, "\(a) vs \(b)")
            }
        }
        for (v, t) in zip(values.striding(by: 2), values.dropFirst().striding(by: 2)) {
            #expect(v == t)
        }
    }

    /// An equal but differently represented value: integers as doubles where exact, integral
    /// doubles as integers, object members reversed.
    static func twin(of value: JSONValue) -> JSONValue {
        switch value {
        case .integer(let i) where abs(Double(i)) < 9_007_199_254_740_992: return .double(Double(i))
        case .double: return value.exactIntegerValue.map(JSONValue.integer) ?? value
        case .array(let a): return .array(a.map(twin))
        case .object(let o):
            var reversed = JSONObject()
            for (k, v) in o.reversed() { reversed[k] = twin(of: v) }
            return .object(reversed)
        default: return value
        }
    }

    @Test func setsDeduplicateByValue() {
        let set: Set<JSONValue> = [1, 1.0, 2, 2.0, 0, .double(-0.0), 2.5, "2", ["a": 1, "b": 2], ["b": 2, "a": 1.0]]
        #expect(set.count == 6)
    }

    static let typeNames: [Named<(JSONValue, String)>] = [
        Named("null", (nil, "null")),
        Named("bool", (true, "boolean")),
        Named("integer", (1, "integer")),
        Named("double", (1.5, "number")),
        Named("string", ("s", "string")),
        Named("array", ([], "array")),
        Named("object", ([:], "object")),
    ]

    @Test(arguments: typeNames)
    func typeName(_ c: Named<(JSONValue, String)>) {
        #expect(c.value.0.typeName == c.value.1)
    }

    @Test func payloadAccessors() {
        let value: JSONValue = ["s": "x", "b": false, "a": [1, 2], "o": ["k": nil], "n": nil, "d": 2.5, "i": 7]
        #expect(value["s"]?.stringValue == "x")
        #expect(value["b"]?.boolValue == false)
        #expect(value["a"]?.arrayValue == [1, 2])
        #expect(value["o"]?.objectValue == ["k": nil])
        #expect(value["n"]?.isNull == true)
        #expect(value["s"]?.isNull == false)
        #expect(value["missing"] == nil)
        #expect(value["d"]?.numberValue == 2.5)
        #expect(value["i"]?.numberValue == 7)
        #expect(value["s"]?.numberValue == nil)
        #expect(value["i"]?.stringValue == nil)
        #expect(value["s"]?.boolValue == nil)
        #expect(value["s"]?.arrayValue == nil)
        #expect(value["s"]?.objectValue == nil)
        #expect(JSONValue.string("x")["k"] == nil)
    }

    @Test func indexSubscript() {
        let value: JSONValue = [10, 20, 30]
        #expect(value[0] == 10)
        #expect(value[2] == 30)
        #expect(value[3] == nil)
        #expect(value[-1] == nil)
        #expect(JSONValue.object(["0": 1])[0] == nil)
    }

    static let exactIntegers: [Named<(JSONValue, Int64?)>] = [
        Named("integer", (.integer(.min), .min)),
        Named("integral double", (2.0, 2)),
        Named("negative zero", (.double(-0.0), 0)),
        Named("fraction", (2.5, nil)),
        Named("-2^63", (.double(-9_223_372_036_854_775_808), .min)),
        Named("2^63 is out of range", (.double(9_223_372_036_854_775_808), nil)),
        Named("1e300", (1e300, nil)),
        Named("largest double below 2^63", (.double(9_223_372_036_854_774_784), 9_223_372_036_854_774_784)),
        Named("string", ("1", nil)),
        Named("bool", (true, nil)),
    ]

    @Test(arguments: exactIntegers)
    func exactIntegerValue(_ c: Named<(JSONValue, Int64?)>) {
        #expect(c.value.0.exactIntegerValue == c.value.1)
    }

    @Test func literals() {
        #expect(identical(nil, .null))
        #expect(identical(true, .bool(true)))
        #expect(identical(5, .integer(5)))
        #expect(identical(5.0, .double(5)))
        #expect(identical("s", .string("s")))
        #expect(identical([1, "a"], .array([.integer(1), .string("a")])))
        let object: JSONValue = ["b": 1, "a": 2, "b": 3]
        #expect(object.objectValue?.keys == ["b", "a"])
        #expect(object["b"] == 3)
    }

    @Test func descriptionIsCompactJSON() {
        let value: JSONValue = ["a": [1, 2.5, "x\n", nil, true]]
        #expect(value.description == #"{"a":[1,2.5,"x\n",null,true]}"#)
        #expect("\(JSONValue.string("q"))" == #""q""#)
    }
}

extension Collection {
    /// Every `stride`-th element from the first.
    fileprivate func striding(by stride: Int) -> [Element] {
        enumerated().filter { $0.offset % stride == 0 }.map(\.element)
    }
}
