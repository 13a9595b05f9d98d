import StepwiseJSON
import StepwiseSequences
import StepwiseTesting
import Testing

/// The schema and the Swift loader (`SequenceLoader`) agree: valid fixtures load with no problem,
/// and each invalid fixture yields exactly the `{pointer, code}` pairs of its sidecar.
struct SchemaLoaderAgreementTests {
    @Test(arguments: SequenceFixtures.valid)
    func validFixtureLoadsWithoutProblems(path: String) throws {
        let result = SequenceLoader.load(try PackageFiles.read(path))
        #expect(result.problems.isEmpty, "\(path):\n\(result.problems.map(\.description).joined(separator: "\n"))")
        #expect(result.sequence != nil)
        #expect(try SequenceFixtures.sequenceValidator.get().isValid(try PackageFiles.readJSON(path)))
    }

    @Test(arguments: SequenceFixtures.invalid)
    func loaderReportsExactlyTheExpectedProblems(name: String) throws {
        let result = SequenceLoader.load(try PackageFiles.read(SequenceFixtures.invalidPath(name)))
        let actual = result.problems.map { ExpectedProblem(pointer: $0.pointer.description, code: $0.code.rawValue) }.sorted()
        let expected = try SequenceFixtures.expectedProblems(name).sorted()
        #expect(
            actual == expected,
            """
            \(name): loader and sidecar differ
              expected: \(expected.map(\.description))
              actual:   \(result.problems.map(\.description))
            """
        )
        #expect(result.sequence == nil)
        for problem in result.problems {
            #expect(!problem.message.isEmpty, "\(name): \(problem.pointer) has no message")
        }
        let schemaAccepts = try SequenceFixtures.sequenceValidator.get().isValid(
            try PackageFiles.readJSON(SequenceFixtures.invalidPath(name))
        )
        #expect(schemaAccepts == SequenceFixtures.beyondSchema.contains(name))
    }
}

/// Documents exactly at the limits of SEMANTICS §1.7 load and match the schema (their `+1`
/// counterparts are the invalid fixtures `too-deep`, `too-many-blocks`, `too-many-branches`).
struct SchemaLoaderBoundaryTests {
    private static func step(_ id: String, _ extra: String = "") -> String {
        #"{"type": "step", "id": "\#(id)", "handler": "noop"\#(extra)}"#
    }

    private static func document(_ blocks: [String]) -> String {
        #"{"name": "boundary", "version": 2147483647, "blocks": [\#(blocks.joined(separator: ","))]}"#
    }

    static let cases: [(name: String, text: String)] = [
        ("block nesting 64", {
            var block = step("level_64")
            for level in stride(from: 63, through: 1, by: -1) {
                block = #"{"type": "cancellationScope", "id": "level_\#(level)", "blocks": [\#(block)]}"#
            }
            return document([block])
        }()),
        ("5000 blocks", document((0..<5000).map { step("s\($0)") })),
        ("256 branches", document([
            #"{"type": "race", "id": "r", "branches": [\#((0..<256).map { "[\(step("b\($0)"))]" }.joined(separator: ","))]}"#
        ])),
        ("largest durations", document([
            step("a", #", "timeout": 9007199254740992, "delay": {"duration": 9007199254740.992, "jitter": 0}"#),
            step("b", #", "retry": {"max_attempts": 1, "initial_backoff": 0, "max_backoff": 0.0, "backoff_multiplier": 1e-9}"#),
        ])),
        ("largest loop and for_each bounds", document([
            #"{"type": "loop", "id": "l", "condition": "true", "max_iterations": 100000, "poll_interval": 0, "body": [\#(step("a"))]}"#,
            #"{"type": "for_each", "id": "f", "collection": "data.x", "max_iterations": 100000, "max_concurrency": 64, "body": [\#(step("b"))]}"#,
            #"{"type": "for_each", "id": "g", "collection": "data.x", "max_iterations": 1, "max_concurrency": 1, "item_var": "row", "index_var": "item", "body": [\#(step("c"))]}"#,
        ])),
        ("smallest shapes", document([
            #"{"type": "router", "id": "r", "default": []}"#,
            #"{"type": "router", "id": "r2", "routes": [{"condition": "true", "blocks": []}]}"#,
            #"{"type": "parallel", "id": "p", "branches": [[]]}"#,
            #"{"type": "a_b_split", "id": "ab", "variants": [{"name": "a", "weight": 0, "blocks": []}, {"name": "b", "weight": 1, "blocks": []}]}"#,
            #"{"type": "try_catch", "id": "t", "try_block": [\#(step("x"))], "catch_block": [], "finally_block": []}"#,
            #"{"type": "sub_sequence", "id": "s", "sequence_name": "child"}"#,
            step("w", #", "wait_for_input": {}"#),
        ])),
        // `null` is the same as absent for every optional member (as orch8's decoder treats it).
        ("null optional members", #"""
            {"name": "nulls", "version": 1, "deprecated": null, "on_failure": null, "on_cancel": null, "blocks": [
              {"type": "step", "id": "a", "handler": "noop", "params": null, "when": null, "delay": null, "run_when": null,
               "retry": null, "timeout": null, "cancellable": null, "wait_for_input": null},
              {"type": "step", "id": "b", "handler": "noop",
               "delay": {"duration": 1, "jitter": null, "business_days_only": null, "holidays": null},
               "run_when": {"network": null, "charging": null, "battery_not_low": null},
               "retry": {"max_attempts": 1, "initial_backoff": 1, "max_backoff": 2, "backoff_multiplier": null,
                         "retry_if": null, "non_retryable_codes": null},
               "wait_for_input": {"prompt": null, "timeout": null, "escalation_handler": null, "store_as": null,
                                  "allow_comment": null, "choices": [{"label": null, "value": "x"}]}},
              {"type": "router", "id": "r", "routes": null, "default": []},
              {"type": "parallel", "id": "p", "branches": [[]], "fail_fast": null},
              {"type": "race", "id": "q", "branches": [[]], "semantics": null},
              {"type": "loop", "id": "l", "condition": "false", "body": [{"type": "step", "id": "c", "handler": "noop"}],
               "max_iterations": null, "break_on": null, "continue_on_error": null, "poll_interval": null},
              {"type": "for_each", "id": "f", "collection": "data.x", "body": [{"type": "step", "id": "d", "handler": "noop"}],
               "item_var": null, "index_var": null, "max_iterations": null, "max_concurrency": null},
              {"type": "try_catch", "id": "t", "try_block": [{"type": "step", "id": "e", "handler": "noop"}],
               "catch_block": null, "finally_block": null},
              {"type": "sub_sequence", "id": "s", "sequence_name": "child", "version": null, "input": null}
            ]}
            """#),
    ]

    @Test(arguments: cases.map(\.name))
    func documentAtTheLimitIsValid(name: String) throws {
        let text = try #require(Self.cases.first { $0.name == name }?.text)
        let result = SequenceLoader.load(Array(text.utf8))
        #expect(result.problems.isEmpty, "\(name): \(result.problems.map(\.description))")
        let violations = try SequenceFixtures.sequenceValidator.get().validate(try JSONParser.parse(text))
        #expect(violations.isEmpty, "\(name): \(violations.map(\.description))")
    }
}
