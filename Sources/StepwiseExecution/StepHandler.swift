public import StepwiseJSON

/// What a handler receives for one attempt (SEMANTICS §2.4).
public struct StepContext: Sendable {
    /// The instance.
    public let instanceId: InstanceID
    /// The step's block id.
    public let stepId: String
    /// The handler name.
    public let handler: String
    /// The resolved params.
    public let params: JSONValue
    /// A read-only snapshot of `context.data` at dispatch.
    public let data: JSONValue
    /// The 1-based attempt number.
    public let attempt: Int
    /// `<instanceId>:<stepId>:<iteration path>:<attempt>`, identical when an attempt is re-run
    /// after a crash.
    public let idempotencyKey: String

    /// Creates a context.
    public init(
        instanceId: InstanceID, stepId: String, handler: String, params: JSONValue, data: JSONValue, attempt: Int,
        idempotencyKey: String
    ) {
        self.instanceId = instanceId
        self.stepId = stepId
        self.handler = handler
        self.params = params
        self.data = data
        self.attempt = attempt
        self.idempotencyKey = idempotencyKey
    }
}

/// A step handler: an async function from the attempt's context to its output.
///
/// Throw ``StepError`` to choose between a retryable and a permanent failure; any other error is
/// retryable with its description as the message. Handlers should honour task cancellation
/// (timeouts, instance cancellation, race losses): their results arrive too late to count.
public protocol StepHandler: Sendable {
    /// Runs one attempt.
    ///
    /// - Throws: ``StepError``, or any error (treated as retryable).
    func execute(_ context: StepContext) async throws -> JSONValue
}

/// A handler failure with its retry decision and optional code.
public struct StepError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message recorded on the step.
    public let message: String
    /// The code matched by `non_retryable_codes` and `retry_if`.
    public let code: String?
    /// Whether the retry policy may retry it.
    public let isRetryable: Bool

    /// A failure the retry policy may retry.
    public static func retryable(_ message: String, code: String? = nil) -> StepError {
        StepError(message: message, code: code, isRetryable: true)
    }

    /// A failure never retried.
    public static func permanent(_ message: String, code: String? = nil) -> StepError {
        StepError(message: message, code: code, isRetryable: false)
    }

    public var description: String { message }
}

/// A handler built from a closure.
public struct ClosureStepHandler: StepHandler {
    private let body: @Sendable (StepContext) async throws -> JSONValue
    /// Wraps a closure.
    public init(_ body: @escaping @Sendable (StepContext) async throws -> JSONValue) { self.body = body }
    public func execute(_ context: StepContext) async throws -> JSONValue { try await body(context) }
}

/// The seed documents' string handler: `execute(stepName:input:) -> String`.
///
/// `stepName` is the step id; `input` is compact JSON of `context.data` shallow-merged with the
/// resolved params (params win; non-object params are added under `params`). The returned text
/// is parsed as JSON; text that is not JSON becomes a JSON string.
public struct StringStepHandler: StepHandler {
    private let body: @Sendable (String, String) async throws -> String
    /// Wraps a string function.
    public init(_ body: @escaping @Sendable (_ stepName: String, _ input: String) async throws -> String) { self.body = body }

    public func execute(_ context: StepContext) async throws -> JSONValue {
        var merged = context.data.objectValue ?? JSONObject()
        switch context.params {
        case .null: break
        case .object(let params): for (k, v) in params { merged[k] = v }
        default: merged["params"] = context.params
        }
        let output = try await body(context.stepId, JSONWriter.string(.object(merged)))
        return (try? JSONParser.parse(output)) ?? .string(output)
    }
}
