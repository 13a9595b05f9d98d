import StepwiseConformance
import StepwiseJSON
import StepwiseTesting
import Testing

/// `Schemas/conformance-case.schema.json`: every case file of the suite, and the format's rules
/// (CONFORMANCE.md) on small cases.
struct ConformanceCaseSchemaTests {
    static let caseFiles: [String] = PackageFiles.jsonFiles(in: "Fixtures/conformance", recursive: true)

    private func violations(_ text: String) throws -> [JSONSchemaViolation] {
        try SequenceFixtures.conformanceValidator.get().validate(try JSONParser.parse(text))
    }

    @Test(arguments: caseFiles)
    func caseFileMatchesTheSchema(path: String) throws {
        let validator = try SequenceFixtures.conformanceValidator.get()
        // Case files may nest deeper than a sequence may (a case holding a too-deep document),
        // and a sequence may be malformed JSON (a case on §1.1's decoding): read as the runner does.
        let bytes = try PackageFiles.read(path)
        let readable = ConformanceLoader.maskingMalformedSequences(bytes) ?? bytes
        let violations = validator.validate(try JSONParser.parse(readable, limits: .init(maxDepth: ConformanceLoader.caseFileMaxDepth)))
        #expect(violations.isEmpty, "\(path):\n\(violations.map(\.description).joined(separator: "\n"))")
    }

    private static let sequence = #"{"name": "s", "version": 1, "blocks": [{"id": "a", "type": "step", "handler": "h"}]}"#

    @Test(arguments: [
        #"{"name": "eq", "expr": "context.data.x == 'a'", "data": {"x": "a"}, "expect": true}"#,
        #"{"name": "ctx", "expr": "config.n + 1", "context": {"data": {}, "config": {"n": 2}}, "outputs": {"s": {}}, "expect": 3}"#,
        #"{"name": "null result", "expr": "missing", "expect": null, "expect_truthy": false}"#,
        #"{"name": "err", "expr": "a ==", "data": {}, "expect_error": "position"}"#,
        #"{"name": "any err", "expr": "clamp(1, 5, 1)", "expect_error": true, "description": "lo > hi"}"#,
        #"{"cases": [{"name": "one", "expr": "1", "expect": 1}, {"name": "two", "expr": "2", "expect": 2.0}]}"#,
        """
        {"name": "seq", "instance_id": "00000000-0000-0000-0000-000000000002", "sequence": \(sequence),
         "input": {"user": "u"}, "handlers": {"h": [{"output": {"ok": true}, "delay_ms": 10}, {"echo": true},
         {"fail": "boom", "retryable": false, "code": "e1"}]},
         "actions": [{"on_waiting": "a", "complete_step": {"value": "x"}, "expect_rejected": "not one of"},
                     {"on_waiting": "a", "complete_step": {"value": "y"}}, {"on_waiting": "a", "cancel": true},
                     {"at_ms": 500, "cancel": true}, {"after_step": "a", "restart_engine": true}, {"crash_during": "a"}],
         "expect": {"state": "completed", "data": {"a": {"ok": true}}, "data_absent": ["item"], "outputs": {"a": {}},
                    "outputs_absent": [], "steps_run": ["a"], "steps_run_in_order": ["a"], "steps_not_run": [],
                    "calls": {"h": 1}, "call_inputs": {"h": [{}]}, "error_contains": ""}}
        """,
        """
        {"name": "waiting", "sequence": \(sequence), "sequences": [\(sequence)], "handlers": {"h": [{"output": 1}]},
         "expect": {"state": "waiting", "waiting_on": "a"}}
        """,
        #"{"name": "load error", "sequence": {"name": "s", "version": 1, "blocks": []}, "expect": {"load_error": "empty_blocks"}}"#,
    ])
    func validCasesAreAccepted(text: String) throws {
        let found = try violations(text)
        #expect(found.isEmpty, "\(found.map(\.description))")
    }

    @Test(arguments: [
        // (case, instance pointer where the schema must complain)
        (#"{"name": "x", "expr": "1"}"#, ""),  // no expectation
        (#"{"name": "x", "expr": "1", "expect": 1, "expect_error": true}"#, ""),
        (#"{"name": "x", "expr": "1", "expect": 1, "data": {}, "context": {}}"#, ""),
        (#"{"name": "x", "expr": "1", "expect": 1, "expcet": 2}"#, "/expcet"),
        (#"{"name": "x", "expr": "1", "expect_error": 5}"#, "/expect_error"),
        (#"{"name": " ", "expr": "1", "expect": 1}"#, "/name"),
        (#"{"cases": []}"#, "/cases"),
        (#"{"cases": [{"name": "x", "expr": "1", "expect": 1}], "extra": 1}"#, "/extra"),
        ("[]", ""),
        (#"{"name": "s", "sequence": \#(sequence)}"#, ""),  // no expect
        (#"{"name": "s", "sequence": \#(sequence), "expect": {}}"#, "/expect"),
        (#"{"name": "s", "sequence": \#(sequence), "expect": {"state": "done"}}"#, "/expect/state"),
        (#"{"name": "s", "sequence": \#(sequence), "expect": {"state": "failed", "load_error": "x"}}"#, "/expect"),
        (#"{"name": "s", "sequence": \#(sequence), "expect": {"load_error": "x", "calls": {}}}"#, "/expect"),
        (#"{"name": "s", "sequence": \#(sequence), "expect": {"state": "failed", "waiting_on": "a"}}"#, "/expect/state"),
        (#"{"name": "s", "sequence": \#(sequence), "expect": {"state": "failed", "calls": {"h": -1}}}"#, "/expect/calls/h"),
        (#"{"name": "s", "sequence": {"name": "s", "version": 1, "blocks": []}, "expect": {"state": "failed"}}"#, "/sequence/blocks"),
        (#"{"name": "s", "sequence": \#(sequence), "sequences": [{"name": "t"}], "expect": {"state": "failed"}}"#, "/sequences/0"),
        (#"{"name": "s", "sequence": \#(sequence), "instance_id": "not-a-uuid", "expect": {"state": "failed"}}"#, "/instance_id"),
        (#"{"name": "s", "sequence": \#(sequence), "input": [], "expect": {"state": "failed"}}"#, "/input"),
        (#"{"name": "s", "sequence": \#(sequence), "handlers": {"h": []}, "expect": {"state": "failed"}}"#, "/handlers/h"),
        (#"{"name": "s", "sequence": \#(sequence), "handlers": {"h": [{"delay_ms": 5}]}, "expect": {"state": "failed"}}"#, "/handlers/h/0"),
        (#"{"name": "s", "sequence": \#(sequence), "handlers": {"h": [{"output": 1, "fail": "x"}]}, "expect": {"state": "failed"}}"#, "/handlers/h/0"),
        (#"{"name": "s", "sequence": \#(sequence), "handlers": {"h": [{"output": 1, "retryable": true}]}, "expect": {"state": "failed"}}"#, "/handlers/h/0/retryable"),
        (#"{"name": "s", "sequence": \#(sequence), "handlers": {"h": [{"echo": false}]}, "expect": {"state": "failed"}}"#, "/handlers/h/0/echo"),
        (#"{"name": "s", "sequence": \#(sequence), "actions": [{"on_waiting": "a"}], "expect": {"state": "failed"}}"#, "/actions/0"),
        (#"{"name": "s", "sequence": \#(sequence), "actions": [{"at_ms": -1, "cancel": true}], "expect": {"state": "failed"}}"#, "/actions/0"),
        (#"{"name": "s", "sequence": \#(sequence), "actions": [{"crash_during": "a", "cancel": true}], "expect": {"state": "failed"}}"#, "/actions/0"),
    ])
    func invalidCasesAreRejected(text: String, pointer: String) throws {
        let found = try violations(text)
        let expected = try #require(JSONPointer(parsing: pointer))
        #expect(!found.isEmpty, "accepted: \(text)")
        #expect(
            found.contains { $0.instanceLocation.isPrefix(of: expected) || expected.isPrefix(of: $0.instanceLocation) },
            "no violation near \(pointer): \(found.map(\.description))"
        )
    }
}
