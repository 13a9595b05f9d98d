public import StepwiseJSON

/// Everything an expression or template can read while it is evaluated.
///
/// Built per evaluation by the engine; cheap to pass because ``Expression/evaluate(_:)`` borrows
/// it and never copies the JSON it holds.
///
/// ```swift
/// let scope = EvaluationScope(data: ["terms_decision": "declined"])
/// try Expression.compile("terms_decision == 'declined'").evaluate(scope)   // .value(true)
/// ```
public struct EvaluationScope {
    /// `context.data` (an object).
    public var data: JSONValue
    /// `context.config`.
    public var config: JSONValue
    /// The latest output of each block, keyed by block id (`outputs.<id>`, `steps.<id>`).
    public var outputs: JSONObject
    /// What `runtime.…` and `instance_id` read.
    public var runtime: RuntimeInfo
    /// The engine clock in Unix epoch milliseconds, read by `now()`.
    public var nowMilliseconds: Int64
    /// The injected, seeded generator used by `uuid()` and `random()`.
    public var random: RandomSource

    /// Creates a scope; every field has an empty or neutral default.
    public init(
        data: JSONValue = [:],
        config: JSONValue = [:],
        outputs: JSONObject = [:],
        runtime: RuntimeInfo = RuntimeInfo(),
        nowMilliseconds: Int64 = 0,
        random: RandomSource = RandomSource(seed: 0)
    ) {
        self.data = data
        self.config = config
        self.outputs = outputs
        self.runtime = runtime
        self.nowMilliseconds = nowMilliseconds
        self.random = random
    }
}
