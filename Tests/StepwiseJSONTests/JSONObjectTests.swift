import StepwiseJSON
import Testing

/// `JSONObject`: insertion order, replacement in place, removal, and lookups on both sides of
/// the hash-index threshold.
struct JSONObjectTests {
    static func object(keys count: Int) -> JSONObject {
        var o = JSONObject(minimumCapacity: count)
        for i in 0..<count { o["k\(i)"] = .integer(Int64(i)) }
        return o
    }

    @Test(arguments: [0, 1, 12, 13, 50])
    func lookupsAndOrder(count: Int) {
        let o = Self.object(keys: count)
        #expect(o.count == count)
        #expect(o.isEmpty == (count == 0))
        #expect(o.keys == (0..<count).map { "k\($0)" })
        for i in 0..<count {
            #expect(o["k\(i)"] == .integer(Int64(i)))
            #expect(o.position(of: "k\(i)") == i)
            #expect(o.contains("k\(i)"))
        }
        #expect(o["k\(count)"] == nil)
        #expect(!o.contains("missing"))
        #expect(o.position(of: "missing") == nil)
        #expect(Array(o).map(\.key) == o.keys)
        #expect(o.underestimatedCount == count)
    }

    @Test(arguments: [3, 13, 20])
    func assignmentReplacesInPlace(count: Int) {
        var o = Self.object(keys: count)
        o["k1"] = "replaced"
        #expect(o.keys == (0..<count).map { "k\($0)" })
        #expect(o["k1"] == "replaced")
        o["new"] = true
        #expect(o.keys.last == "new")
        #expect(o["new"] == true)
    }

    /// Removal works above the threshold, across it (dropping the index) and below it.
    @Test(arguments: [5, 13, 14, 30])
    func removal(count: Int) {
        var o = Self.object(keys: count)
        #expect(o.removeValue(forKey: "k0") == 0)
        #expect(o.removeValue(forKey: "k0") == nil)
        o["k2"] = nil
        #expect(o.count == count - 2)
        #expect(o.keys == (0..<count).filter { $0 != 0 && $0 != 2 }.map { "k\($0)" })
        for i in 0..<count where i != 0 && i != 2 {
            #expect(o["k\(i)"] == .integer(Int64(i)))
            #expect(o.position(of: "k\(i)") == o.keys.firstIndex(of: "k\(i)"))
        }
        // Grow back past the threshold.
        for i in 0..<20 { o["extra\(i)"] = nil; o["extra\(i)"] = .integer(Int64(i)) }
        #expect(o["extra19"] == 19)
        #expect(o.position(of: "extra0") == count - 2)
    }

    @Test func keysCompareByBytes() {
        var o = JSONObject()
        o["\u{E9}"] = 1
        o["e\u{301}"] = 2
        #expect(o.count == 2)
        #expect(o["\u{E9}"] == 1)
        #expect(o["e\u{301}"] == 2)
        // Also with the hash index.
        var big = Self.object(keys: 20)
        big["\u{E9}"] = 1
        big["e\u{301}"] = 2
        #expect(big.count == 22)
        #expect(big["e\u{301}"] == 2)
        #expect(big.removeValue(forKey: "\u{E9}") == 1)
        #expect(big["e\u{301}"] == 2)
    }

    /// Keys differing in one byte anywhere stay distinct, at lengths around the 8- and 16-byte
    /// boundaries of the key fingerprint, and for long keys sharing their first and last bytes.
    @Test(arguments: [1, 7, 8, 9, 15, 16, 17, 24, 40])
    func keysDifferingInOneByteStayDistinct(length: Int) throws {
        for position in Set([0, length / 2, length - 1]) {
            var bytes = [UInt8](repeating: UInt8(ascii: "k"), count: length)
            let a = String(decoding: bytes, as: UTF8.self)
            bytes[position] = UInt8(ascii: "q")
            let b = String(decoding: bytes, as: UTF8.self)
            for size in [2, 20] {
                var o = Self.object(keys: size - 2)
                o[a] = 1
                o[b] = 2
                #expect(o.count == size)
                #expect(o[a] == 1)
                #expect(o[b] == 2)
                #expect(o.position(of: a) == size - 2)
            }
            let parsed = try JSONParser.parse(#"{"\#(a)":1,"\#(b)":2}"#)
            #expect(parsed[a] == 1 && parsed[b] == 2)
            #expect(parseFailure(#"{"\#(b)":1,"\#(a)":2,"\#(b)":3}"#)?.offset == 2 * length + 11)
        }
    }

    @Test func sortedByKeyUsesBytes() {
        let o: JSONObject = ["b": 1, "é": 2, "a": 3, "B": 4, "e\u{301}": 5]
        #expect(o.sortedByKey().map(\.key) == ["B", "a", "b", "e\u{301}", "é"])
        #expect(o.sortedByKey().map(\.value) == [4, 3, 1, 5, 2])
    }

    @Test func equalityIgnoresOrder() {
        let a: JSONObject = ["x": 1, "y": [2]]
        let b: JSONObject = ["y": [2.0], "x": 1.0]
        #expect(a == b)
        #expect(a != ["x": 1])
        #expect(a != ["x": 1, "z": [2]])
        #expect(Self.object(keys: 30) == {
            var o = JSONObject()
            for i in (0..<30).reversed() { o["k\(i)"] = .integer(Int64(i)) }
            return o
        }())
    }

    @Test func valuesInOrder() {
        let o: JSONObject = ["z": 1, "a": "two", "m": nil]
        #expect(o.values == [1, "two", nil])
        #expect(JSONObject().keys.isEmpty)
    }
}
