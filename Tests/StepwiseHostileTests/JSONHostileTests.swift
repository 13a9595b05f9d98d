import Stepwise
import Testing

/// `Fixtures/hostile/json`: `JSONParser.parse` with the default limits (depth 256).
///
/// `expect` is `{"error": {"code", "message"?, "offset"?}}` or, for inputs that must be accepted,
/// any of `accepted`, `value`, `types` (element type names), `string_bytes`, `array_count`,
/// `object_count`.
@Suite(.serialized)
struct JSONHostileTests {
    @Test(arguments: HostileCorpus.cases("json"))
    func parsesOrRejectsCleanly(_ c: HostileCase) throws {
        try Self.check(c)
    }

    @Test(.enabled(if: HostileCorpus.runKnownBugs), arguments: HostileCorpus.cases("json", knownBugs: true))
    func knownBugReproducers(_ c: HostileCase) throws {
        try Self.check(c)
    }

    static func check(_ c: HostileCase) throws {
        Expect.knownKeys(c, Expect.valueKeys.union(["error"]))
        let bytes = try c.input()
        guard let result = Expect.bounded(c, { Result { () throws(JSONParseError) in try JSONParser.parse(bytes) } }) else {
            return
        }
        switch (result, c.expect["error"]?.objectValue) {
        case (.failure(let error), let expected?):
            #expect(error.code.rawValue == expected["code"]?.stringValue, "\(c.testDescription): code \(error.code)")
            if let offset = expected["offset"]?.exactIntegerValue {
                #expect(error.offset == Int(offset), "\(c.testDescription): offset \(error.offset)")
            }
            #expect(error.offset >= 0 && error.offset <= bytes.count, "\(c.testDescription): offset outside the input")
            Expect.message(error.message, contains: expected["message"]?.stringValue, c)
        case (.failure(let error), nil):
            Issue.record("\(c.testDescription): rejected: \(error)")
        case (.success(let value), _?):
            Issue.record("\(c.testDescription): accepted \(Expect.describe(value))")
        case (.success(let value), nil):
            Expect.value(value, c)
        }
    }
}
