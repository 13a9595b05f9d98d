import StepwiseJSON
import StepwiseSequences
import Testing

@Suite("Every validation rule of SEMANTICS §1.6, with its pointer, code and message")
struct ValidationRuleTests {
    static let cases: [ValidationCase] = [
        // Envelope.
        ValidationCase(
            "missing name", #"{"version": 1, "blocks": [\#(step("a"))]}"#,
            [ExpectedProblem("/name", "missing_field", "missing field 'name'")]),
        ValidationCase(
            "blank name", #"{"name": "  ", "version": 1, "blocks": [\#(step("a"))]}"#,
            [ExpectedProblem("/name", "missing_field", "blank")]),
        ValidationCase(
            "version of wrong type", #"{"name": "t", "version": "1", "blocks": [\#(step("a"))]}"#,
            [ExpectedProblem("/version", "wrong_type", "expected integer, got string")]),
        ValidationCase(
            "version out of range", #"{"name": "t", "version": 2147483648, "blocks": [\#(step("a"))]}"#,
            [ExpectedProblem("/version", "wrong_type", "2147483648")]),
        ValidationCase(
            "missing blocks", #"{"name": "t", "version": 1}"#,
            [ExpectedProblem("/blocks", "missing_field", "missing field 'blocks'")]),
        ValidationCase(
            "empty blocks", document(""), [ExpectedProblem("/blocks", "empty_blocks", "sequence has no blocks")]),
        ValidationCase(
            "document not an object", "[]", [ExpectedProblem("", "wrong_type", "expected object, got array")]),
        ValidationCase(
            "block not an object", document("42"), [ExpectedProblem("/blocks/0", "wrong_type", "expected object, got integer")]),
        // Types.
        ValidationCase(
            "missing type", document(#"{"id": "a", "handler": "h"}"#),
            [ExpectedProblem("/blocks/0/type", "unknown_type", "step, router, parallel, race, loop, for_each, try_catch, sub_sequence, a_b_split, cancellation_scope")]),
        ValidationCase(
            "unknown type", document(#"{"type": "stepp", "id": "a"}"#),
            [ExpectedProblem("/blocks/0/type", "unknown_type", "unknown block type 'stepp'")]),
        ValidationCase(
            "saga unsupported", document(#"{"type": "saga", "id": "a"}"#),
            [ExpectedProblem("/blocks/0/type", "unsupported", "saga")]),
        ValidationCase(
            "unsupported step field", document(step("a", #""deadline": 5"#)),
            [ExpectedProblem("/blocks/0/deadline", "unsupported", "deadline")]),
        ValidationCase(
            "unsupported fields set to null set nothing",
            document(step("a", #""deadline": null, "cache_key": null, "delay": {"duration": 1, "timezone": null, "fire_at_local": null}"#)),
            []),
        ValidationCase(
            "unsupported delay options", document(step("a", #""delay": {"duration": 1, "business_days_only": true, "holidays": ["2026-12-25"], "timezone": "UTC", "fire_at_local": "09:00"}"#)),
            [
                ExpectedProblem("/blocks/0/delay/business_days_only", "unsupported"),
                ExpectedProblem("/blocks/0/delay/holidays", "unsupported"),
                ExpectedProblem("/blocks/0/delay/timezone", "unsupported"),
                ExpectedProblem("/blocks/0/delay/fire_at_local", "unsupported"),
            ]),
        // Ids and handlers.
        ValidationCase(
            "missing id", document(#"{"type": "step", "handler": "h"}"#),
            [ExpectedProblem("/blocks/0/id", "missing_field", "missing field 'id'")]),
        ValidationCase("empty id", document(step("")), [ExpectedProblem("/blocks/0/id", "empty_id")]),
        ValidationCase(
            "duplicate id", document(step("a") + "," + step("b") + "," + step("a")),
            [ExpectedProblem("/blocks/2/id", "duplicate_id", "duplicate block id 'a', first at /blocks/0")]),
        ValidationCase(
            "duplicate id in a nested list", document(step("a") + #", {"type": "cancellation_scope", "id": "s", "blocks": [\#(step("a"))]}"#),
            [ExpectedProblem("/blocks/1/blocks/0/id", "duplicate_id", "first at /blocks/0")]),
        ValidationCase(
            "missing handler", document(#"{"type": "step", "id": "a"}"#),
            [ExpectedProblem("/blocks/0/handler", "missing_field", "missing field 'handler'")]),
        ValidationCase(
            "blank handler", document(#"{"type": "step", "id": "a", "handler": " "}"#),
            [ExpectedProblem("/blocks/0/handler", "empty_handler")]),
        ValidationCase(
            "blank escalation handler", document(step("a", #""wait_for_input": {"escalation_handler": ""}"#)),
            [ExpectedProblem("/blocks/0/wait_for_input/escalation_handler", "empty_handler")]),
        ValidationCase(
            "handler of wrong type", document(#"{"type": "step", "id": "a", "handler": 3}"#),
            [ExpectedProblem("/blocks/0/handler", "wrong_type", "expected string, got integer")]),
        // Retry.
        ValidationCase(
            "retry max_attempts zero", document(step("a", #""retry": {"max_attempts": 0, "initial_backoff": 1, "max_backoff": 2}"#)),
            [ExpectedProblem("/blocks/0/retry/max_attempts", "invalid_retry", "max_attempts 0")]),
        ValidationCase(
            "retry backoff order", document(step("a", #""retry": {"max_attempts": 1, "initial_backoff": 5, "max_backoff": 2}"#)),
            [ExpectedProblem("/blocks/0/retry", "invalid_retry", "initial_backoff 5 ms is greater than max_backoff 2 ms")]),
        ValidationCase(
            "retry multiplier", document(step("a", #""retry": {"max_attempts": 1, "initial_backoff": 1, "max_backoff": 2, "backoff_multiplier": 0}"#)),
            [ExpectedProblem("/blocks/0/retry/backoff_multiplier", "invalid_retry")]),
        ValidationCase(
            "retry blank retry_if", document(step("a", #""retry": {"max_attempts": 1, "initial_backoff": 1, "max_backoff": 2, "retry_if": " "}"#)),
            [ExpectedProblem("/blocks/0/retry/retry_if", "invalid_retry", "blank")]),
        ValidationCase(
            "retry empty code", document(step("a", #""retry": {"max_attempts": 1, "initial_backoff": 1, "max_backoff": 2, "non_retryable_codes": ["x", ""]}"#)),
            [ExpectedProblem("/blocks/0/retry/non_retryable_codes/1", "invalid_retry")]),
        ValidationCase(
            "retry missing fields", document(step("a", #""retry": {}"#)),
            [
                ExpectedProblem("/blocks/0/retry/max_attempts", "missing_field"),
                ExpectedProblem("/blocks/0/retry/initial_backoff", "missing_field"),
                ExpectedProblem("/blocks/0/retry/max_backoff", "missing_field"),
            ]),
        // Durations.
        ValidationCase(
            "negative duration", document(step("a", #""timeout": -1"#)),
            [ExpectedProblem("/blocks/0/timeout", "invalid_duration", "negative")]),
        ValidationCase(
            "string duration", document(step("a", #""timeout": "5s""#)),
            [ExpectedProblem("/blocks/0/timeout", "invalid_duration", "got string")]),
        ValidationCase(
            "huge duration", document(step("a", #""delay": {"duration": 9007199254740993}"#)),
            [ExpectedProblem("/blocks/0/delay/duration", "invalid_duration")]),
        ValidationCase(
            "huge seconds duration", document(step("a", #""wait_for_input": {"timeout": 1e300}"#)),
            [ExpectedProblem("/blocks/0/wait_for_input/timeout", "invalid_duration")]),
        // Waits.
        ValidationCase(
            "empty choices", document(step("a", #""wait_for_input": {"choices": []}"#)),
            [ExpectedProblem("/blocks/0/wait_for_input/choices", "invalid_choices")]),
        ValidationCase(
            "choice value empty", document(step("a", #""wait_for_input": {"choices": [{"label": "x", "value": ""}]}"#)),
            [ExpectedProblem("/blocks/0/wait_for_input/choices/0/value", "invalid_choices")]),
        ValidationCase(
            "choice value not a string", document(step("a", #""wait_for_input": {"choices": [{"value": 1}]}"#)),
            [ExpectedProblem("/blocks/0/wait_for_input/choices/0/value", "invalid_choices")]),
        ValidationCase(
            "duplicate choice", document(step("a", #""wait_for_input": {"choices": [{"value": "y"}, {"value": "y"}]}"#)),
            [ExpectedProblem("/blocks/0/wait_for_input/choices/1/value", "invalid_choices", "duplicate choice value 'y'")]),
        ValidationCase(
            "empty store_as", document(step("a", #""wait_for_input": {"store_as": ""}"#)),
            [ExpectedProblem("/blocks/0/wait_for_input/store_as", "invalid_store_as")]),
        // Parallel and race.
        ValidationCase(
            "parallel without branches", document(#"{"type": "parallel", "id": "p", "branches": []}"#),
            [ExpectedProblem("/blocks/0/branches", "no_branches", "parallel has no branches")]),
        ValidationCase(
            "race missing branches", document(#"{"type": "race", "id": "r"}"#),
            [ExpectedProblem("/blocks/0/branches", "missing_field")]),
        ValidationCase(
            "too many branches",
            document(#"{"type": "race", "id": "r", "branches": [\#(Array(repeating: "[]", count: 257).joined(separator: ","))]}"#),
            [ExpectedProblem("/blocks/0/branches", "too_many_branches", "257 branches, more than the limit of 256")]),
        ValidationCase(
            "branch not an array", document(#"{"type": "parallel", "id": "p", "branches": [{}]}"#),
            [ExpectedProblem("/blocks/0/branches/0", "wrong_type")]),
        ValidationCase(
            "race semantics unknown", document(#"{"type": "race", "id": "r", "branches": [[]], "semantics": "fastest"}"#),
            [ExpectedProblem("/blocks/0/semantics", "wrong_type", "first_to_resolve, first_to_succeed")]),
        // Loop.
        ValidationCase(
            "loop blank condition", document(#"{"type": "loop", "id": "l", "condition": "", "body": [\#(step("a"))]}"#),
            [ExpectedProblem("/blocks/0/condition", "invalid_loop", "blank")]),
        ValidationCase(
            "loop empty body", document(#"{"type": "loop", "id": "l", "condition": "true", "body": []}"#),
            [ExpectedProblem("/blocks/0/body", "invalid_loop", "empty")]),
        ValidationCase(
            "loop iterations out of range",
            document(#"{"type": "loop", "id": "l", "condition": "true", "body": [\#(step("a"))], "max_iterations": 0}"#),
            [ExpectedProblem("/blocks/0/max_iterations", "invalid_loop", "max_iterations 0 is outside 1…100000")]),
        ValidationCase(
            "loop iterations too many",
            document(#"{"type": "loop", "id": "l", "condition": "true", "body": [\#(step("a"))], "max_iterations": 100001}"#),
            [ExpectedProblem("/blocks/0/max_iterations", "invalid_loop", "100001")]),
        // for_each.
        ValidationCase(
            "for_each blank collection", document(#"{"type": "for_each", "id": "f", "collection": " ", "body": [\#(step("a"))]}"#),
            [ExpectedProblem("/blocks/0/collection", "invalid_for_each", "blank")]),
        ValidationCase(
            "for_each empty body", document(#"{"type": "for_each", "id": "f", "collection": "items", "body": []}"#),
            [ExpectedProblem("/blocks/0/body", "invalid_for_each")]),
        ValidationCase(
            "for_each blank item_var", document(#"{"type": "for_each", "id": "f", "collection": "items", "item_var": "", "body": [\#(step("a"))]}"#),
            [ExpectedProblem("/blocks/0/item_var", "invalid_for_each")]),
        ValidationCase(
            "for_each index_var equals item_var",
            document(#"{"type": "for_each", "id": "f", "collection": "items", "item_var": "x", "index_var": "x", "body": [\#(step("a"))]}"#),
            [ExpectedProblem("/blocks/0/index_var", "invalid_for_each", "same as item_var")]),
        ValidationCase(
            "for_each blank index_var", document(#"{"type": "for_each", "id": "f", "collection": "items", "index_var": " ", "body": [\#(step("a"))]}"#),
            [ExpectedProblem("/blocks/0/index_var", "invalid_for_each")]),
        ValidationCase(
            "for_each concurrency out of range",
            document(#"{"type": "for_each", "id": "f", "collection": "items", "max_concurrency": 65, "body": [\#(step("a"))]}"#),
            [ExpectedProblem("/blocks/0/max_concurrency", "invalid_for_each", "max_concurrency 65 is outside 1…64")]),
        ValidationCase(
            "for_each iterations out of range",
            document(#"{"type": "for_each", "id": "f", "collection": "items", "max_iterations": 0, "body": [\#(step("a"))]}"#),
            [ExpectedProblem("/blocks/0/max_iterations", "invalid_for_each")]),
        ValidationCase(
            "for_each empty path segment", document(#"{"type": "for_each", "id": "f", "collection": "a..b", "body": [\#(step("a"))]}"#),
            [ExpectedProblem("/blocks/0/collection", "invalid_for_each", "empty segment")]),
        // Router.
        ValidationCase(
            "router with nothing", document(#"{"type": "router", "id": "r"}"#),
            [ExpectedProblem("/blocks/0", "invalid_router", "no route and no default")]),
        ValidationCase(
            "router blank condition", document(#"{"type": "router", "id": "r", "routes": [{"condition": " ", "blocks": []}]}"#),
            [ExpectedProblem("/blocks/0/routes/0/condition", "invalid_router", "blank")]),
        ValidationCase(
            "router route without condition", document(#"{"type": "router", "id": "r", "routes": [{"blocks": []}]}"#),
            [ExpectedProblem("/blocks/0/routes/0/condition", "missing_field")]),
        // try_catch, sub_sequence, split, scope.
        ValidationCase(
            "try_catch empty try", document(#"{"type": "try_catch", "id": "t", "try_block": []}"#),
            [ExpectedProblem("/blocks/0/try_block", "invalid_try_catch")]),
        ValidationCase(
            "try_catch missing try", document(#"{"type": "try_catch", "id": "t", "catch_block": []}"#),
            [ExpectedProblem("/blocks/0/try_block", "missing_field")]),
        ValidationCase(
            "sub_sequence blank name", document(#"{"type": "sub_sequence", "id": "s", "sequence_name": ""}"#),
            [ExpectedProblem("/blocks/0/sequence_name", "invalid_sub_sequence", "blank")]),
        ValidationCase(
            "a_b_split with one variant", document(#"{"type": "a_b_split", "id": "x", "variants": [{"name": "a", "weight": 1, "blocks": []}]}"#),
            [ExpectedProblem("/blocks/0/variants", "invalid_ab_split", "a_b_split needs at least 2 variants")]),
        ValidationCase(
            "a_b_split missing variants", document(#"{"type": "a_b_split", "id": "x"}"#),
            [ExpectedProblem("/blocks/0/variants", "missing_field")]),
        ValidationCase(
            "a_b_split duplicate and blank names",
            document(#"{"type": "abSplit", "id": "x", "variants": [{"name": "a", "weight": 1, "blocks": []}, {"name": "a", "weight": 1, "blocks": []}, {"name": "", "weight": 1, "blocks": []}]}"#),
            [
                ExpectedProblem("/blocks/0/variants/1/name", "invalid_ab_split", "duplicate variant name 'a'"),
                ExpectedProblem("/blocks/0/variants/2/name", "invalid_ab_split", "blank"),
            ]),
        ValidationCase(
            "a_b_split negative weight",
            document(#"{"type": "a_b_split", "id": "x", "variants": [{"name": "a", "weight": -1, "blocks": []}, {"name": "b", "weight": 1, "blocks": []}]}"#),
            [ExpectedProblem("/blocks/0/variants/0/weight", "invalid_ab_split", "negative")]),
        ValidationCase(
            "a_b_split zero total",
            document(#"{"type": "a_b_split", "id": "x", "variants": [{"name": "a", "weight": 0, "blocks": []}, {"name": "b", "weight": 0, "blocks": []}]}"#),
            [ExpectedProblem("/blocks/0/variants", "invalid_ab_split", "total weight")]),
        ValidationCase(
            "scope without blocks", document(#"{"type": "cancellation_scope", "id": "c", "blocks": []}"#),
            [ExpectedProblem("/blocks/0/blocks", "invalid_scope")]),
        // Hooks have their own id spaces.
        ValidationCase(
            "hooks have their own id spaces",
            document(step("a"), extra: #", "on_failure": [\#(step("a"))], "on_cancel": [\#(step("a")), \#(step("a"))]"#),
            [ExpectedProblem("/on_cancel/1/id", "duplicate_id", "first at /on_cancel/0")]),
    ]

    @Test(arguments: cases)
    func rule(_ testCase: ValidationCase) {
        expectProblems(load(testCase.document), testCase.problems)
    }

    @Test func everyProblemIsReportedAtOnce() {
        let result = load(document(#"{"type": "step", "id": ""}, {"type": "loop", "id": "l", "condition": "", "body": []}, {"type": "nope", "id": "z"}"#))
        #expect(result.problems.count == 5)
        #expect(result.sequence == nil)
    }

    @Test func invalidErrorListsEveryProblemOnItsOwnLine() throws {
        let result = load(document(#"{"type": "step", "id": "a"}, {"type": "step", "id": "a", "handler": ""}"#))
        let error = #expect(throws: SequenceInvalidError.self) { try result.get() }
        let lines = error?.description.split(separator: "\n").map(String.init) ?? []
        #expect(lines.count == 4)
        #expect(lines.contains("/blocks/0/handler: missing_field: missing field 'handler'"))
        #expect(lines.contains("/blocks/1/handler: empty_handler: handler is blank"))
        #expect(lines.contains("/blocks/1/id: duplicate_id: duplicate block id 'a', first at /blocks/0"))
    }
}
