import Stepwise
import Testing

/// `Fixtures/hostile/sequence`: `SequenceLoader.load` with the default limits (1 MiB, JSON depth
/// 256, block depth 64, 5000 blocks, 256 branches).
///
/// `expect` is `{"valid": true}`, or `{"problems": [{"code"?, "pointer"?, "message"?}],
/// "problem_count"?: N}`: each listed problem must match one reported problem (message by
/// substring); `problem_count` fixes the total.
@Suite(.serialized)
struct SequenceHostileTests {
    @Test(arguments: HostileCorpus.cases("sequence"))
    func loadsOrRejectsCleanly(_ c: HostileCase) throws {
        try Self.check(c)
    }

    @Test(.enabled(if: HostileCorpus.runKnownBugs), arguments: HostileCorpus.cases("sequence", knownBugs: true))
    func knownBugReproducers(_ c: HostileCase) throws {
        try Self.check(c)
    }

    static func check(_ c: HostileCase) throws {
        Expect.knownKeys(c, ["valid", "problems", "problem_count"])
        let bytes = try c.input()
        guard let result = Expect.bounded(c, { LoadResult.Summary(SequenceLoader.load(bytes)) }) else { return }
        if c.expect["valid"]?.boolValue == true {
            #expect(result.problems.isEmpty, "\(c.testDescription): rejected: \(result.problems.prefix(5))")
            #expect(result.isValid)
            return
        }
        #expect(!result.isValid, "\(c.testDescription): accepted")
        for case .object(let expected) in c.expect["problems"]?.arrayValue ?? [] {
            let match = result.problems.first { problem in
                (expected["code"]?.stringValue).map { $0 == problem.code.rawValue } ?? true
                    && (expected["pointer"]?.stringValue).map { $0 == problem.pointer.description } ?? true
                    && (expected["message"]?.stringValue).map { problem.message.contains($0) } ?? true
            }
            #expect(match != nil, "\(c.testDescription): no problem matches \(expected); got \(result.problems.prefix(5))")
        }
        if let count = c.expect["problem_count"]?.exactIntegerValue {
            #expect(result.problems.count == Int(count), "\(c.testDescription): \(result.problems.count) problems")
        }
        for problem in result.problems.prefix(100) { Expect.message(problem.message, contains: nil, c) }
    }
}

extension LoadResult {
    /// What the checks read, without the compiled sequence (which is not needed across threads).
    struct Summary: Sendable {
        let problems: [Problem]
        let isValid: Bool

        init(_ result: LoadResult) {
            problems = result.problems
            isValid = result.isValid
        }
    }
}
