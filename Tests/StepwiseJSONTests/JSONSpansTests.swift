@testable import StepwiseJSON
import Testing

/// Byte ranges of array elements and object members, as written (whitespace, escapes and
/// nesting included).
struct JSONSpansTests {
    func text(_ bytes: [UInt8], _ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    @Test func elementsKeepTheirBytesAsWritten() throws {
        let bytes = Array(#" [ {"a" : [1, "]"]} ,"x\"]" ,  -1.5e3,true,null , [] ] "#.utf8)
        let whole = try #require(JSONSpans.value(in: bytes, from: 0))
        let elements = try #require(JSONSpans.elements(in: bytes, of: whole))
        #expect(elements.map { text(bytes, $0) } == [#"{"a" : [1, "]"]}"#, #""x\"]""#, "-1.5e3", "true", "null", "[]"])
    }

    @Test func membersAreFoundByKey() throws {
        let bytes = Array(#"{"cases":[{"sequence" : {"name":"a\u0062"} , "name":"c"}], "n": 1}"#.utf8)
        let whole = try #require(JSONSpans.value(in: bytes, from: 0))
        let cases = try #require(JSONSpans.member("cases", in: bytes, of: whole))
        let first = try #require(JSONSpans.elements(in: bytes, of: cases)?.first)
        let sequence = try #require(JSONSpans.member("sequence", in: bytes, of: first))
        #expect(text(bytes, sequence) == #"{"name":"a\u0062"}"#)
        #expect(JSONSpans.member("missing", in: bytes, of: whole) == nil)
        #expect(JSONSpans.member("n", in: bytes, of: whole).map { text(bytes, $0) } == "1")
    }

    @Test func emptyContainersAndWrongKinds() throws {
        let array = Array("[ ]".utf8)
        #expect(JSONSpans.elements(in: array, of: 0..<3) == [])
        #expect(JSONSpans.members(in: array, of: 0..<3) == nil)
        let object = Array("{}".utf8)
        #expect(JSONSpans.members(in: object, of: 0..<2)?.isEmpty == true)
        #expect(JSONSpans.elements(in: object, of: 0..<2) == nil)
        #expect(JSONSpans.value(in: Array("   ".utf8), from: 0) == nil)
    }

    @Test func deepNestingIsScannedWithoutRecursion() throws {
        let depth = 100_000
        let bytes = Array(("[" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + ",2]").utf8)
        let whole = try #require(JSONSpans.value(in: bytes, from: 0))
        #expect(JSONSpans.elements(in: bytes, of: whole)?.count == 2)
    }

    @Test(arguments: 0..<50)
    func everyElementOfARandomArrayParsesToTheParsedElement(seed: Int) throws {
        var random = RandomJSON(seed: UInt64(seed))
        let values = (0..<5).map { _ in random.value(depth: 2) }
        let bytes = JSONWriter.bytes(.array(values), options: .prettyPrinted)
        let whole = try #require(JSONSpans.value(in: bytes, from: 0))
        let elements = try #require(JSONSpans.elements(in: bytes, of: whole))
        #expect(try elements.map { try JSONParser.parse(Array(bytes[$0])) } == values)
    }
}
