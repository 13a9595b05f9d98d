import Foundation
import StepwiseJSON
import StepwiseSequences

/// Handlers every engine has without host code (a host registration of the same name replaces
/// them): `noop`, `log`, `echo`, `sleep`, `set`, `fail`.
///
/// `sleep` and `set` are carried out by the engine itself: `sleep` is a durable timer (no thread
/// is blocked, and it survives restarts), `set` writes its params into `context.data` in the
/// same transition that records the step.
public enum BuiltinHandlers {
    /// The built-in names.
    public static let names = ["noop", "log", "echo", "sleep", "set", "fail"]

    /// Names the engine carries out itself while the built-in is registered.
    static let engineHandled: Set<String> = ["sleep", "set"]

    /// The handler objects registered at engine start.
    static var all: [String: any StepHandler] {
        [
            "noop": NoopHandler(), "log": LogHandler(), "echo": EchoHandler(), "sleep": SleepHandler(),
            "set": SetHandler(), "fail": FailHandler(),
        ]
    }

    /// The sleep duration in ms from params: `ms`, `seconds`, or `duration` (a §1.4 duration);
    /// `nil` when negative or longer than a §1.4 duration may be (2⁵³ ms): params come from a
    /// server-pushed sequence, and a deadline past the clock's range must not trap.
    static func sleepMilliseconds(_ params: JSONValue) -> Int64? {
        if let ms = params["ms"]?.numberValue { return bounded(ms) }
        if let s = params["seconds"]?.numberValue { return bounded(s * 1000) }
        switch params["duration"] {
        case .integer(let ms)?: return ms >= 0 && ms <= SequenceLimits.maxDurationMilliseconds ? ms : nil
        case .double(let s)?: return bounded(s * 1000)
        default: return nil
        }
    }

    private static func bounded(_ ms: Double) -> Int64? {
        guard ms >= 0, ms <= Double(SequenceLimits.maxDurationMilliseconds) else { return nil }
        return Int64(ms)
    }
}

/// `noop`: returns `{}`.
struct NoopHandler: StepHandler {
    func execute(_ context: StepContext) async throws -> JSONValue { .object(JSONObject()) }
}

/// `echo`: returns its params.
struct EchoHandler: StepHandler {
    func execute(_ context: StepContext) async throws -> JSONValue { context.params }
}

/// `log`: writes `params.message` (or the params) to standard error and returns the params.
struct LogHandler: StepHandler {
    func execute(_ context: StepContext) async throws -> JSONValue {
        let text = context.params["message"]?.stringValue ?? JSONWriter.string(context.params)
        FileHandle.standardError.write(Data("[stepwise] \(context.instanceId) \(context.stepId): \(text)\n".utf8))
        return context.params
    }
}

/// `fail`: throws `params.message` (default "failed by the fail handler"), permanent unless
/// `params.retryable` is true, with `params.code`.
struct FailHandler: StepHandler {
    func execute(_ context: StepContext) async throws -> JSONValue {
        let message = context.params["message"]?.stringValue ?? "failed by the fail handler"
        let code = context.params["code"]?.stringValue
        if context.params["retryable"]?.boolValue == true { throw StepError.retryable(message, code: code) }
        throw StepError.permanent(message, code: code)
    }
}

/// `sleep`: the engine turns it into a durable timer; called directly it sleeps for real.
struct SleepHandler: StepHandler {
    func execute(_ context: StepContext) async throws -> JSONValue {
        let ms = BuiltinHandlers.sleepMilliseconds(context.params) ?? 0
        try await Task.sleep(nanoseconds: UInt64(max(0, ms)) * 1_000_000)
        return ["slept_ms": .integer(ms)]
    }
}

/// `set`: the engine merges its params into `context.data`; called directly it returns them.
struct SetHandler: StepHandler {
    func execute(_ context: StepContext) async throws -> JSONValue { context.params }
}
