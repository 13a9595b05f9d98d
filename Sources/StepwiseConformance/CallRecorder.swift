import StepwiseExecution
import StepwiseJSON
import Synchronization

/// Everything the scripted handlers saw, shared across engine restarts within one case (and
/// how many engines the case opened).
final class CallRecorder: Sendable {
    struct State {
        var callCounts: [String: Int] = [:]
        var callInputs: [String: [JSONValue]] = [:]
        var stepsInOrder: [String] = []
        var stepsSeen: Set<String> = []
        var crashArmedStep: String?
        var crashTriggered = false
        /// The call held for a `crash_during` action, resumed (throwing) when its task is cancelled.
        var hanging: CheckedContinuation<Void, any Error>?
        var unexpected: [String] = []
        /// Calls in flight per step id: a `crash_during` armed while one runs crashes at once.
        var inFlightSteps: [String: Int] = [:]
        /// Engines opened so far in the case (the first is 0).
        var engineOpens = 0
    }

    let state = Mutex(State())

    /// Records a call and returns its 0-based index for the handler.
    func record(handler: String, step: String, params: JSONValue) -> Int {
        state.withLock { s in
            let index = s.callCounts[handler, default: 0]
            s.callCounts[handler] = index + 1
            s.callInputs[handler, default: []].append(params)
            if !s.stepsSeen.contains(step) {
                s.stepsSeen.insert(step)
                s.stepsInOrder.append(step)
            }
            return index
        }
    }

    /// The number of this engine open within the case (0 for the first), for its seed.
    func nextEngineOpen() -> Int {
        state.withLock { s in
            defer { s.engineOpens += 1 }
            return s.engineOpens
        }
    }

    /// Marks a call of `step` as started or finished.
    func setInFlight(_ step: String, _ started: Bool) {
        state.withLock { s in s.inFlightSteps[step, default: 0] += started ? 1 : -1 }
    }

    /// Whether this call must hang until the engine is dropped (a `crash_during` action).
    func shouldHangForCrash(step: String) -> Bool {
        state.withLock { s in
            guard let armed = s.crashArmedStep, armed == step, !s.crashTriggered, s.hanging == nil else { return false }
            return true
        }
    }

    /// Holds the call until its task is cancelled (the runner drops the engine). The runner sees
    /// the crash as triggered only once the call is held, in the same step: a crash reported
    /// any earlier could cancel the task before it waits and leave it waiting for ever.
    func hangUntilCancelled() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                state.withLock { s in
                    s.hanging = continuation
                    s.crashTriggered = true
                }
            }
        } onCancel: {
            let held = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                defer { s.hanging = nil }
                return s.hanging
            }
            held?.resume(throwing: CancellationError())
        }
    }

    /// Number of calls held for a crash (0 or 1).
    var hangingCount: Int { state.withLock { $0.hanging == nil ? 0 : 1 } }
}

/// A handler replaying a case's scripted responses.
struct ScriptedHandler: StepHandler {
    let name: String
    let responses: [JSONValue]
    let recorder: CallRecorder
    let clock: VirtualClock

    func execute(_ context: StepContext) async throws -> JSONValue {
        let index = recorder.record(handler: name, step: context.stepId, params: context.params)
        recorder.setInFlight(context.stepId, true)
        defer { recorder.setInFlight(context.stepId, false) }
        if recorder.shouldHangForCrash(step: context.stepId) {
            // Stay in flight until the runner drops the engine (which cancels this task).
            try await recorder.hangUntilCancelled()
        }
        guard !responses.isEmpty else { return .null }
        let response = responses[min(index, responses.count - 1)]
        if let delay = response["delay_ms"]?.exactIntegerValue, delay > 0 {
            try await clock.sleep(until: clock.now() + delay)
        }
        if let message = response["fail"] {
            let text = message.stringValue ?? JSONWriter.string(message)
            let code = response["code"]?.stringValue
            if response["retryable"]?.boolValue == false { throw StepError.permanent(text, code: code) }
            throw StepError.retryable(text, code: code)
        }
        if response["echo"]?.boolValue == true { return context.params }
        return response["output"] ?? .null
    }
}
