public import StepwiseExpressions
public import StepwiseJSON

/// A `step` block: calls a registered handler, with optional guard, delay, device conditions,
/// retries, timeout and a human-input wait (SEMANTICS §1.5, §2.3).
public struct StepBlock: Sendable {
    /// The registered handler name.
    public let handler: String
    /// The params as written (`null` when absent).
    public let rawParams: JSONValue
    /// The params with their `{{ }}` templates compiled.
    public let params: TemplatedValue
    /// Guard: a falsy result skips the step.
    public let when: Expression?
    /// Durable wait before the handler.
    public let delay: StepDelay?
    /// Device conditions required before each attempt.
    public let runWhen: RunWhen?
    /// Retry policy.
    public let retry: RetryPolicy?
    /// Per-attempt timeout in milliseconds, overriding `handlerTimeoutMs`.
    public let timeoutMilliseconds: Int64?
    /// Whether instance cancellation stops the step once started.
    public let isCancellable: Bool
    /// The human-input wait after the handler succeeds.
    public let waitForInput: WaitForInput?

    /// Creates a step.
    public init(
        handler: String, rawParams: JSONValue, params: TemplatedValue, when: Expression?, delay: StepDelay?,
        runWhen: RunWhen?, retry: RetryPolicy?, timeoutMilliseconds: Int64?, isCancellable: Bool,
        waitForInput: WaitForInput?
    ) {
        self.handler = handler
        self.rawParams = rawParams
        self.params = params
        self.when = when
        self.delay = delay
        self.runWhen = runWhen
        self.retry = retry
        self.timeoutMilliseconds = timeoutMilliseconds
        self.isCancellable = isCancellable
        self.waitForInput = waitForInput
    }
}

/// A step's `delay`: a duration plus optional uniform jitter, both in milliseconds.
public struct StepDelay: Sendable, Hashable {
    /// The base delay.
    public let durationMilliseconds: Int64
    /// The upper bound of the random extra delay drawn once per node.
    public let jitterMilliseconds: Int64
    /// Creates a delay.
    public init(durationMilliseconds: Int64, jitterMilliseconds: Int64 = 0) {
        self.durationMilliseconds = durationMilliseconds
        self.jitterMilliseconds = jitterMilliseconds
    }
}

/// A step's `run_when` device conditions (SEMANTICS §2.5).
public struct RunWhen: Sendable, Hashable {
    /// Network requirement.
    public enum Network: String, Sendable, Hashable, CaseIterable {
        /// No requirement.
        case any
        /// Any connection.
        case connected
        /// An unmetered connection.
        case unmetered
    }
    /// Required network.
    public let network: Network
    /// Required charging state, if any.
    public let charging: Bool?
    /// Whether the battery must not be low.
    public let batteryNotLow: Bool?
    /// Creates conditions.
    public init(network: Network = .any, charging: Bool? = nil, batteryNotLow: Bool? = nil) {
        self.network = network
        self.charging = charging
        self.batteryNotLow = batteryNotLow
    }
}

/// A step's `retry` policy (SEMANTICS §2.6).
public struct RetryPolicy: Sendable {
    /// Retries allowed after the first attempt (`max_attempts: 2` → 3 calls).
    public let maxAttempts: Int
    /// Backoff before the first retry, in milliseconds.
    public let initialBackoffMilliseconds: Int64
    /// Upper bound of any backoff, in milliseconds.
    public let maxBackoffMilliseconds: Int64
    /// Growth factor between retries.
    public let backoffMultiplier: Double
    /// Condition evaluated with `data._error` set; falsy means do not retry.
    public let retryIf: Expression?
    /// Error codes that are never retried.
    public let nonRetryableCodes: [String]

    /// Creates a policy.
    public init(
        maxAttempts: Int, initialBackoffMilliseconds: Int64, maxBackoffMilliseconds: Int64,
        backoffMultiplier: Double = 2.0, retryIf: Expression? = nil, nonRetryableCodes: [String] = []
    ) {
        self.maxAttempts = maxAttempts
        self.initialBackoffMilliseconds = initialBackoffMilliseconds
        self.maxBackoffMilliseconds = maxBackoffMilliseconds
        self.backoffMultiplier = backoffMultiplier
        self.retryIf = retryIf
        self.nonRetryableCodes = nonRetryableCodes
    }

    /// The wait before retry `k` (1-based): `min(initial × multiplier^(k−1), max)` milliseconds.
    public func backoffMilliseconds(beforeRetry k: Int) -> Int64 {
        let raw = Double(initialBackoffMilliseconds) * pow2(backoffMultiplier, k - 1)
        let capped = min(raw, Double(maxBackoffMilliseconds))
        guard capped.isFinite, capped >= 0 else { return maxBackoffMilliseconds }
        // Binary floating point misses decimal products by an ulp (1000 × 1.4² is
        // 1959.9999999999998): a product within a billionth of a whole millisecond is that
        // millisecond; others are truncated.
        let nearest = capped.rounded()
        return Int64(Swift.abs(capped - nearest) <= Swift.max(1, capped) * 1e-9 ? nearest : capped.rounded(.down))
    }

    /// `base` to the power `exponent` by squaring: a step retried millions of times
    /// (`max_attempts` may be huge) costs a few multiplications, not one per retry.
    private func pow2(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        var factor = base
        var remaining = max(0, exponent)
        while remaining > 0 {
            if remaining & 1 == 1 { result *= factor }
            remaining >>= 1
            if remaining > 0 { factor *= factor }
            if !result.isFinite || result > 1e300 { return .infinity }
        }
        return result
    }
}

/// A step's `wait_for_input` (SEMANTICS §2.9).
public struct WaitForInput: Sendable, Hashable {
    /// Text shown to the person.
    public let prompt: String
    /// Time allowed from entering the wait, in milliseconds.
    public let timeoutMilliseconds: Int64?
    /// Handler called once on timeout; its output completes the wait.
    public let escalationHandler: String?
    /// Accepted answers, when restricted.
    public let choices: [Choice]?
    /// Where the accepted value lands in `context.data` (default: the step id).
    public let storeAs: String?
    /// Accepted for orch8 compatibility; no effect.
    public let allowComment: Bool

    /// Creates a wait.
    public init(
        prompt: String = "", timeoutMilliseconds: Int64? = nil, escalationHandler: String? = nil,
        choices: [Choice]? = nil, storeAs: String? = nil, allowComment: Bool = false
    ) {
        self.prompt = prompt
        self.timeoutMilliseconds = timeoutMilliseconds
        self.escalationHandler = escalationHandler
        self.choices = choices
        self.storeAs = storeAs
        self.allowComment = allowComment
    }

    /// One accepted answer.
    public struct Choice: Sendable, Hashable {
        /// What the person sees.
        public let label: String
        /// What is stored.
        public let value: String
        /// Creates a choice; the label defaults to the value.
        public init(label: String? = nil, value: String) {
            self.label = label ?? value
            self.value = value
        }
    }
}
