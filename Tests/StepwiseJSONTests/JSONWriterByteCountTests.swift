import StepwiseJSON
import Testing

/// `JSONWriter.byteCount`: the exact size of the text `bytes` would write, for every option,
/// and `nil` once past the limit without writing anything.
struct JSONWriterByteCountTests {
    static let optionSets: [JSONWriter.Options] = [
        [], [.sortedKeys], [.integralDoublesAsIntegers], [.prettyPrinted], [.prettyPrinted, .sortedKeys, .integralDoublesAsIntegers],
    ]

    @Test("the count equals the written size for random values", arguments: 0..<40)
    func matchesWrittenSize(seed: Int) {
        var random = RandomJSON(seed: UInt64(seed) &+ 7_000)
        let value = random.value()
        for options in Self.optionSets {
            let written = JSONWriter.bytes(value, options: options).count
            #expect(JSONWriter.byteCount(value, options: options) == written, "options \(options.rawValue)")
            #expect(JSONWriter.byteCount(value, options: options, limit: written) == written)
            #expect(JSONWriter.byteCount(value, options: options, limit: written - 1) == nil)
        }
    }

    @Test func escapesAndNumbers() {
        let value: JSONValue = ["a\"\\\n\u{1}": [1.0, -0.5, 12, nil, true, false, "é"]]
        #expect(JSONWriter.byteCount(value) == JSONWriter.bytes(value).count)
        #expect(JSONWriter.byteCount(value, options: .integralDoublesAsIntegers) == #"{"a\"\\\n\u0001":[1,-0.5,12,null,true,false,"é"]}"#.utf8.count)
        #expect(JSONWriter.byteCount([:]) == 2)
        #expect(JSONWriter.byteCount([], options: .prettyPrinted) == 2)
    }

    @Test("a value sharing one large element many times is refused early")
    func sharedElementsStopAtTheLimit() {
        let big = JSONValue.string(String(repeating: "a", count: 1 << 20))
        // 10,000 references to 1 MiB: 10 GB of text if written.
        let value = JSONValue.array(Array(repeating: big, count: 10_000))
        #expect(JSONWriter.byteCount(value, limit: 4 << 20) == nil)
        #expect(JSONWriter.byteCount(.array(Array(repeating: big, count: 3)), limit: 4 << 20) == 3 * ((1 << 20) + 2) + 4)
    }
}
