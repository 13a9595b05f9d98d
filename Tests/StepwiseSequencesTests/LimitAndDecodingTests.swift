import StepwiseJSON
import StepwiseSequences
import Testing

@Suite("Decoding rules and limits (SEMANTICS §1.1, §1.7) on hostile input")
struct LimitAndDecodingTests {
    func nestedBlocks(depth: Int) -> String {
        var text = step("leaf")
        for level in stride(from: depth - 1, through: 1, by: -1) {
            text = #"{"type": "cancellation_scope", "id": "s\#(level)", "blocks": [\#(text)]}"#
        }
        return document(text)
    }

    @Test func blockNesting64IsAccepted() {
        let result = load(nestedBlocks(depth: 64))
        #expect(result.problems.isEmpty, "\(result.problems)")
    }

    @Test func blockNesting65IsRejectedAtTheDeepBlock() {
        let result = load(nestedBlocks(depth: 65))
        #expect(result.problems.count == 1)
        let problem = result.problems.first
        #expect(problem?.code == .tooDeep)
        #expect(problem?.message == "block nesting 65 exceeds the limit of 64")
        #expect(problem?.pointer.tokens.count == 65 * 2)
    }

    @Test func moreThan5000BlocksIsRejected() {
        let steps = (0..<5001).map { step("s\($0)") }.joined(separator: ",")
        let result = load(document(steps))
        #expect(result.problems.map(\.code) == [.tooManyBlocks])
        #expect(result.problems.first?.pointer.description == "/blocks/5000")
        #expect(result.problems.first?.message.contains("5001 blocks, more than the limit of 5000") == true)
    }

    @Test func exactly5000BlocksIsAccepted() {
        let steps = (0..<5000).map { step("s\($0)") }.joined(separator: ",")
        #expect(load(document(steps)).isValid)
    }

    @Test func jsonNesting100000DeepIsRejectedWithoutCrashing() {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let result = load(text)
        #expect(result.problems.map(\.code) == [.tooDeepJSON])
    }

    @Test func documentOverTheSizeCapIsRejectedBeforeParsing() {
        let big = "{\"name\": \"" + String(repeating: "x", count: 50 * 1024 * 1024) + "\"}"
        let result = load(big)
        #expect(result.problems.map(\.code) == [.tooLarge])
        #expect(result.problems.first?.message.contains("more than the limit of 1048576") == true)
    }

    @Test(arguments: [
        ("\u{FEFF}{}", "byte order mark"),
        (#"{"name": "a", "name": "b"}"#, "duplicate key 'name'"),
        (#"{"a": 1e400}"#, "out of range"),
        (#"{"a": 1} x"#, "after the end"),
        (#"{"a": "\ud800"}"#, "lone high surrogate"),
    ])
    func malformedJSONIsInvalidJSONWithAnOffset(text: String, message: String) {
        let result = load(text)
        #expect(result.problems.map(\.code) == [.invalidJSON])
        #expect(result.problems.first?.message.contains(message) == true, "\(result.problems)")
        #expect(result.problems.first?.message.contains("at byte") == true)
    }

    @Test func invalidUTF8IsInvalidJSON() {
        var bytes = Array(#"{"name": "x"#.utf8)
        bytes.append(0xC3)
        bytes.append(contentsOf: Array(#"", "version": 1, "blocks": []}"#.utf8))
        let result = SequenceLoader.load(bytes)
        #expect(result.problems.map(\.code) == [.invalidJSON])
        #expect(result.problems.first?.message.contains("invalid UTF-8 at byte 11") == true, "\(result.problems)")
    }
}
