public import Stepwise

/// The evaluation scope the expression and template targets evaluate against: every JSON type,
/// nesting, unicode, dates, a larger array, outputs, config and runtime values, so that paths
/// written by the fuzzer reach real values and functions see every kind of argument.
public enum FuzzScope {
    /// `context.data`.
    public static let data: JSONValue = [
        "s": "hello world",
        "empty": "",
        "n": 42,
        "neg": -3,
        "f": 2.5,
        "tiny": .double(Double.leastNonzeroMagnitude),
        "huge": 1.7976931348623157e308,
        "imin": .integer(Int64.min),
        "imax": .integer(Int64.max),
        "t": true,
        "fls": false,
        "z": nil,
        "num_text": "1e3",
        "b64": "aGVsbG8=",
        "date": "2026-05-19T10:30:00.004Z",
        "offset_date": "2026-05-19T23:59:59+14:00",
        "unicode": "São 😀 \u{202E}abc\u{200F} ß ﬃ İ",
        "arr": [1, 2.5, "x", nil, true, [1, 2], ["a": 1]],
        "nums": [3, 1, 2, -7.5, 1e300],
        "strs": ["b", "a", "c", "", "é"],
        "dupes": [1, 1.0, "1", true, nil, nil, [1], [1.0]],
        "obj": ["a": 1, "b": ["c": [1, 2, 3], "d": nil], "e": "text"],
        "input": ["user_id": "abc", "tier": "pro", "items": [["sku": "a", "qty": 2]]],
        "runtime": "shadowed",
        "big": .array((0..<5_000).map { .integer(Int64($0 * 7919 % 5_000)) }),
        "long": .string(String(repeating: "abcdefghij", count: 2_000)),
    ]

    /// `context.config`.
    public static let config: JSONValue = ["flag": true, "limit": 10, "name": "cfg"]

    /// The latest outputs.
    public static let outputs: JSONObject = [
        "step-1": ["ok": true, "value": "accepted", "list": [1, 2, 3]],
        "show_terms": ["value": "declined"],
    ]

    /// A fresh scope (the random source is stateful, so each evaluation gets its own).
    public static func make() -> EvaluationScope {
        EvaluationScope(
            data: data, config: config, outputs: outputs,
            runtime: RuntimeInfo(
                attempt: 2, instanceId: "4f1c0000-0000-4000-8000-000000000000", sequenceName: "fuzz",
                sequenceVersion: 3, currentStep: "step-1", startedAt: "2026-05-19T10:29:58.120Z",
                currentStepStartedAt: "2026-05-19T10:30:00.004Z", totalStepsExecuted: 5),
            nowMilliseconds: 1_779_186_600_004,
            random: RandomSource(seed: 7))
    }
}
