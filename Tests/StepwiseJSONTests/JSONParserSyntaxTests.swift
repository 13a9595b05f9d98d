import StepwiseJSON
import Testing

/// RFC 8259 structure: literals, whitespace, arrays, objects, empty and trailing input.
struct JSONParserSyntaxTests {
    static let validDocuments: [Named<(String, JSONValue)>] = [
        Named("null", ("null", nil)),
        Named("true", ("true", true)),
        Named("false", ("false", false)),
        Named("top-level string", (#""x""#, "x")),
        Named("top-level number", ("42", 42)),
        Named("empty array", ("[]", [])),
        Named("empty object", ("{}", [:])),
        Named("empty containers with whitespace", ("[ ]", [])),
        Named("empty object with whitespace", ("{ \n}", [:])),
        Named("all four whitespace characters", (" \t\r\n[ \t\r\n1 \t\r\n, \t\r\n2 \t\r\n] \t\r\n", [1, 2])),
        Named("nested", (#"{"a":[1,{"b":null}],"c":{"d":[[],{}]}}"#, ["a": [1, ["b": nil]], "c": ["d": [[], [:]]]])),
        Named("whitespace around colon and comma", (#"{ "a" : 1 , "b" : [ true , false ] }"#, ["a": 1, "b": [true, false]])),
        Named("empty key", (#"{"":1}"#, ["": 1])),
        Named("array of mixed scalars", (#"[null,true,false,0,-1.5,"s"]"#, [nil, true, false, 0, -1.5, "s"])),
    ]

    @Test(arguments: validDocuments)
    func parsesValidDocument(_ c: Named<(String, JSONValue)>) throws {
        let value = try JSONParser.parse(c.value.0)
        #expect(identical(value, c.value.1), "got \(value)")
    }

    static let invalidDocuments: [Named<(String, Int)>] = [
        Named("empty input", ("", 0)),
        Named("whitespace only", ("   ", 3)),
        Named("open array", ("[", 1)),
        Named("array missing comma end", ("[1", 2)),
        Named("array after comma", ("[1,", 3)),
        Named("trailing comma in array", ("[1,]", 3)),
        Named("leading comma in array", ("[,1]", 1)),
        Named("double comma", ("[1,,2]", 3)),
        Named("missing comma in array", ("[1 2]", 3)),
        Named("open object", ("{", 1)),
        Named("key without colon", (#"{"a""#, 4)),
        Named("key and colon", (#"{"a":"#, 5)),
        Named("unterminated object", (#"{"a":1"#, 6)),
        Named("trailing comma in object", (#"{"a":1,}"#, 7)),
        Named("unquoted key", ("{a:1}", 1)),
        Named("single-quoted key", ("{'a':1}", 1)),
        Named("number key", ("{1:1}", 1)),
        Named("missing colon", (#"{"a" 1}"#, 5)),
        Named("missing comma in object", (#"{"a":1 "b":2}"#, 7)),
        Named("array closed by brace", ("[1}", 2)),
        Named("object closed by bracket", (#"{"a":1]"#, 6)),
        Named("lone closing bracket", ("]", 0)),
        Named("lone closing brace", ("}", 0)),
        Named("truncated true", ("tru", 0)),
        Named("truncated null", ("nul", 0)),
        Named("capitalised literal", ("True", 0)),
        Named("misspelt literal", ("nulL", 0)),
        Named("single-quoted string", ("'a'", 0)),
        Named("trailing literal", ("truex", 4)),
        Named("trailing closing brace", (#"{"a":1}}"#, 7)),
        Named("two documents", ("[] []", 3)),
        Named("trailing garbage", ("[1,2]garbage", 5)),
        Named("trailing NUL", ("1\u{0}", 1)),
        Named("vertical tab is not whitespace", ("\u{0B}1", 0)),
        Named("form feed is not whitespace", ("\u{0C}1", 0)),
        Named("no-break space is not whitespace", ("\u{A0}1", 0)),
        Named("line comment", ("// x\n1", 0)),
        Named("block comment", ("[1/*x*/]", 2)),
        Named("value missing in member", (#"{"a":}"#, 5)),
        Named("bare word", ("undefined", 0)),
    ]

    @Test(arguments: invalidDocuments)
    func rejectsInvalidDocumentAtOffset(_ c: Named<(String, Int)>) {
        let error = parseFailure(c.value.0)
        #expect(error?.code == .invalidJSON)
        #expect(error?.offset == c.value.1, "\(error.map(String.init(describing:)) ?? "")")
    }

    @Test func emptyInputSaysSo() {
        #expect(parseFailure("")?.message == "empty document")
    }

    @Test func errorDescriptionCarriesTheOffset() {
        let error = parseFailure("[1,]")
        #expect(error?.description == "unexpected character ']', expected a value at byte 3")
    }

    @Test func stringOverloadMatchesBytes() throws {
        let text = #"{"a":[1,2.5,"x"]}"#
        #expect(identical(try JSONParser.parse(text), try JSONParser.parse(Array(text.utf8))))
    }

    @Test func largeArraysAndObjectsParse() throws {
        let count = 200_000
        let array = "[" + (0..<count).map(String.init).joined(separator: ",") + "]"
        let parsedArray = try JSONParser.parse(array)
        #expect(parsedArray.arrayValue?.count == count)
        #expect(parsedArray[count - 1] == .integer(Int64(count - 1)))

        // 100,000 distinct keys: duplicate detection must stay O(1) per key.
        let object = "{" + (0..<100_000).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let parsedObject = try JSONParser.parse(object)
        #expect(parsedObject.objectValue?.count == 100_000)
        #expect(parsedObject["k99999"] == 99_999)
        #expect(parsedObject.objectValue?.keys.first == "k0")
    }
}
