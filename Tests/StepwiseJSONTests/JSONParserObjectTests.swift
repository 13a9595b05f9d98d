import StepwiseJSON
import Testing

/// Objects: duplicate keys anywhere are `invalid_json` at the repeated key, member order is
/// kept, and keys are compared by their bytes.
struct JSONParserObjectTests {
    static let duplicates: [Named<(String, Int)>] = [
        Named("adjacent", (#"{"a":1,"a":2}"#, 7)),
        Named("separated", (#"{"a":1,"b":2,"a":3}"#, 13)),
        Named("same value", (#"{"a":null,"a":null}"#, 10)),
        Named("after a nested value", (#"{"a":{"x":[1]},"a":2}"#, 15)),
        Named("in a nested object", (#"{"x":{"a":1,"a":2}}"#, 12)),
        Named("in the second object of an array", (#"[{"a":1},{"a":1,"a":1}]"#, 16)),
        Named("deep inside arrays", (#"[[[{"b":0,"c":0,"b":0}]]]"#, 16)),
        Named("spelled with an escape", (#"{"a":1,"\u0061":2}"#, 7)),
        Named("both spelled with escapes", (#"{"\u00e9":1,"\u00E9":2}"#, 12)),
        Named("raw and escaped non-ASCII", (#"{"é":1,"\u00e9":2}"#, 8)),
        Named("empty key twice", (#"{"":1,"":2}"#, 6)),
        Named("with whitespace", ("{ \"a\" : 1 ,\n \"a\" : 2 }", 13)),
    ]

    @Test(arguments: duplicates)
    func rejectsDuplicateKeyAtItsOffset(_ c: Named<(String, Int)>) {
        let error = parseFailure(c.value.0)
        #expect(error?.code == .invalidJSON)
        #expect(error?.offset == c.value.1, "\(error.map(String.init(describing:)) ?? "")")
        #expect(error?.message.hasPrefix("duplicate key") == true)
    }

    @Test func duplicateMessageNamesTheKey() {
        #expect(parseFailure(#"{"step":1,"step":2}"#)?.message == "duplicate key 'step'")
    }

    @Test("a long duplicate key is quoted by its first 64 Unicode scalars")
    func duplicateMessageTruncatesLongKeys() {
        let key64 = String(repeating: "k", count: 64)
        #expect(parseFailure(#"{"\#(key64)":1,"\#(key64)":2}"#)?.message == "duplicate key '\(key64)'")
        let key = String(repeating: "k", count: 100_000)
        let error = parseFailure(#"{"\#(key)":1,"\#(key)":2}"#)
        #expect(error?.code == .invalidJSON)
        #expect(error?.offset == key.utf8.count + 6)
        #expect(error?.message == "duplicate key '\(key64)…'")
        // One grapheme of many combining marks is still cut by scalars.
        let marks = "e" + String(repeating: "\u{301}", count: 10_000)
        let message = parseFailure(#"{"\#(marks)":1,"\#(marks)":2}"#)?.message ?? ""
        #expect(message.unicodeScalars.count == "duplicate key ''…".unicodeScalars.count + 64)
    }

    /// Objects above ``JSONObject/indexThreshold`` keys use a hash index; duplicates of every
    /// position are still found, on both sides of the threshold, also in nested objects.
    @Test(arguments: [1, 11, 12, 13, 14, 30, 200])
    func rejectsDuplicatesInObjectsOfAnySize(keyCount: Int) {
        let members = (0..<keyCount).map { #""key\#($0)":\#($0)"# }
        let prefix = "{" + members.joined(separator: ",") + ","
        for repeated in Set([0, keyCount / 2, keyCount - 1]) {
            let text = prefix + #""key\#(repeated)":true}"#
            let error = parseFailure(text)
            #expect(error?.code == .invalidJSON)
            #expect(error?.offset == prefix.utf8.count, "key \(repeated) of \(keyCount)")

            let nestedPrefix = #"{"outer":1,"list":[0,"#
            let nested = nestedPrefix + text + "]}"
            #expect(parseFailure(nested)?.offset == nestedPrefix.utf8.count + prefix.utf8.count)
        }
        // The same object without the repetition parses, order kept.
        let valid = "{" + members.joined(separator: ",") + "}"
        let object = try? JSONParser.parse(valid).objectValue
        #expect(object?.keys == (0..<keyCount).map { "key\($0)" })
    }

    static let distinctKeys: [Named<String>] = [
        Named("case differs", #"{"a":1,"A":2}"#),
        Named("NFC and NFD é are different keys", "{\"\u{E9}\":1,\"e\u{301}\":2}"),
        Named("NFC and escaped NFD", #"{"\u00e9":1,"e\u0301":2}"#),
        Named("same key at different depths", #"{"a":{"a":{"a":1}}}"#),
        Named("same key in sibling objects", #"[{"a":1},{"a":2}]"#),
        Named("trailing space", #"{"a":1,"a ":2}"#),
        Named("prefix", #"{"ab":1,"a":2,"abc":3}"#),
    ]

    @Test(arguments: distinctKeys)
    func acceptsDistinctKeys(_ c: Named<String>) throws {
        _ = try JSONParser.parse(c.value)
    }

    @Test func canonicallyEquivalentKeysAreSeparateMembers() throws {
        let value = try JSONParser.parse("{\"\u{E9}\":1,\"e\u{301}\":2}")
        let object = try #require(value.objectValue)
        #expect(object.count == 2)
        #expect(object["\u{E9}"] == 1)
        #expect(object["e\u{301}"] == 2)
    }

    @Test func memberOrderIsKept() throws {
        let keys = ["zeta", "alpha", "mid", "", "Beta", "é", "a"]
        let text = "{" + keys.enumerated().map { #""\#($1)":\#($0)"# }.joined(separator: ",") + "}"
        let object = try #require(try JSONParser.parse(text).objectValue)
        #expect(object.keys == keys)
        #expect(object.values == (0..<keys.count).map { JSONValue.integer(Int64($0)) })
    }
}
