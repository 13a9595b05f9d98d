import StepwiseJSON
import StepwiseSequences
import Testing

/// Builds a sequence document around `blocks` (JSON text of the array's elements).
func document(_ blocks: String, extra: String = "") -> String {
    #"{"name": "t", "version": 1, "blocks": [\#(blocks)]\#(extra)}"#
}

/// A minimal valid step with the given id and extra fields.
func step(_ id: String, _ extra: String = "") -> String {
    #"{"type": "step", "id": "\#(id)", "handler": "h"\#(extra.isEmpty ? "" : ", " + extra)}"#
}

func load(_ text: String) -> LoadResult {
    SequenceLoader.load(Array(text.utf8))
}

/// One expected problem: pointer, code and a substring of the message.
struct ExpectedProblem: CustomStringConvertible, Sendable {
    let pointer: String
    let code: String
    let message: String
    init(_ pointer: String, _ code: String, _ message: String = "") {
        self.pointer = pointer
        self.code = code
        self.message = message
    }
    var description: String { "\(pointer) \(code) \(message)" }
}

/// A validation case: a document and exactly the problems it must produce.
struct ValidationCase: CustomTestStringConvertible, Sendable {
    let name: String
    let document: String
    let problems: [ExpectedProblem]
    init(_ name: String, _ document: String, _ problems: [ExpectedProblem]) {
        self.name = name
        self.document = document
        self.problems = problems
    }
    var testDescription: String { name }
}

func expectProblems(_ result: LoadResult, _ expected: [ExpectedProblem], sourceLocation: SourceLocation = #_sourceLocation) {
    let actual = result.problems.map { "\($0.pointer) \($0.code)" }.sorted()
    let wanted = expected.map { "\($0.pointer) \($0.code)" }.sorted()
    #expect(actual == wanted, "problems: \(result.problems)", sourceLocation: sourceLocation)
    for e in expected where !e.message.isEmpty {
        let match = result.problems.first { $0.pointer.description == e.pointer && $0.code.rawValue == e.code }
        #expect(
            match?.message.contains(e.message) == true,
            "message for \(e.pointer) \(e.code): got \(match?.message ?? "none"), want it to contain \(e.message)",
            sourceLocation: sourceLocation)
    }
    if expected.isEmpty {
        #expect(result.sequence != nil, sourceLocation: sourceLocation)
    } else {
        #expect(result.sequence == nil, sourceLocation: sourceLocation)
    }
}
