import StepwiseExpressions
import StepwiseJSON
import Testing

/// SEMANTICS §3.9: nesting depth, long chains, text size.
struct LimitTests {
    static func nested(_ depth: Int, open: String, close: String, inner: String = "1") -> String {
        String(repeating: open, count: depth) + inner + String(repeating: close, count: depth)
    }

    static let shapes: [(String, @Sendable (Int) -> String)] = [
        ("parentheses", { nested($0, open: "(", close: ")") }),
        ("abs calls", { nested($0, open: "abs(", close: ")") }),
        ("not", { String(repeating: "!", count: $0) + "x" }),
        ("negation", { String(repeating: "-", count: $0) + "1" }),
        ("list literals", { nested($0, open: "[", close: "]") }),
        ("index brackets", { "a" + nested($0, open: "[", close: "]", inner: "0") }),
        ("ternary branches", { String(repeating: "x ? 1 : ", count: $0) + "2" }),
        ("mixed", { String(repeating: "(!", count: $0 / 2) + ($0 % 2 == 1 ? "!" : "") + "x" + String(repeating: ")", count: $0 / 2) }),
    ]

    @Test("depth 64 is accepted and 65 rejected at compile time", arguments: 0..<shapes.count)
    func depthLimit(_ i: Int) throws {
        let (name, make) = Self.shapes[i]
        #expect(compileError(make(64)) == nil, "\(name) at 64: \(String(describing: compileError(make(64))))")
        let error = try #require(compileError(make(65)), "\(name) at 65")
        #expect(error.message.contains("nesting deeper than 64"), "\(name): \(error)")
        // Far deeper input fails cleanly (by nesting or by size), never by overflowing the stack.
        #expect(compileError(make(5000)) != nil, "\(name) at 5000")
        #expect(compileError(make(1000))?.message.contains("nesting deeper than 64") == true, "\(name) at 1000")
    }

    @Test("depth 64 values evaluate")
    func deepEvaluation() throws {
        #expect(try evaluate(Self.nested(64, open: "(", close: ")")) == .value(1))
        #expect(try evaluate(Self.nested(64, open: "abs(", close: ")", inner: "2")) == .value(2))
        #expect(try evaluate(String(repeating: "!", count: 64) + "t") == .value(true))
        #expect(try evaluate(String(repeating: "!", count: 63) + "t") == .value(false))
    }

    @Test("the 65th level is reported where it opens")
    func depthPosition() {
        #expect(compileError(Self.nested(65, open: "(", close: ")"))?.position == 64)
        #expect(compileError(String(repeating: "!", count: 65) + "x")?.position == 64)
        #expect(compileError(Self.nested(65, open: "abs(", close: ")"))?.position == 64 * 4 + 3)
    }

    @Test("1000-term chains compile and evaluate without deep recursion")
    func longChains() throws {
        let ands = Array(repeating: "t", count: 1000).joined(separator: " && ")
        #expect(try evaluate(ands) == .value(true))
        let ors = Array(repeating: "fl", count: 999).joined(separator: " || ") + " || n"
        #expect(try evaluate(ors) == .value(true))
        let sum = Array(repeating: "1", count: 1000).joined(separator: " + ")
        #expect(try evaluate(sum) == .value(1000))
        let products = Array(repeating: "1", count: 1000).joined(separator: " * ")
        #expect(try evaluate(products) == .value(1))
        let mixed = (0..<1000).map { "\($0)" }.joined(separator: " - ")
        #expect(try evaluate(mixed) == .value(.double(Double(-(1...999).reduce(0, +)))))
        let big = Array(repeating: "(a == 1 || b && !c)", count: 600).joined(separator: " && ")
        #expect(compileError(big) == nil)
        let concatenation = Array(repeating: "'ab'", count: 1000).joined(separator: " + ")
        #expect(try evaluate(concatenation) == .value(.string(String(repeating: "ab", count: 1000))))
    }

    @Test("text up to 16 KiB is accepted, longer is rejected")
    func textLimit() throws {
        let padding = String(repeating: " ", count: 16 * 1024 - 1)
        #expect(compileError("1" + padding) == nil)
        let error = try #require(compileError("1 " + padding))
        #expect(error.position == 0)
        #expect(error.message.contains("16 KiB"))
        // Counted in UTF-8 bytes: 8,193 two-byte characters are over the limit.
        #expect(compileError("'" + String(repeating: "é", count: 8190) + "'") == nil)
        #expect(compileError("'" + String(repeating: "é", count: 8192) + "'")?.message.contains("16 KiB") == true)
    }
}
