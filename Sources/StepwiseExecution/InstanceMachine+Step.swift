import StepwiseExpressions
import StepwiseJSON
import StepwiseSequences

/// Limits on values a step may write (SEMANTICS §1.7).
enum PayloadLimits {
    static let maxOutputBytes = 1_048_576
    static let maxDataBytes = 4 * 1_048_576
}

extension InstanceMachine {
    // MARK: Entering a step (SEMANTICS §2.3)

    mutating func enterStep(_ id: NodeID, block: Block, step: StepBlock) {
        if let output = record.precompleted?[block.id.rawValue], runtime.iterationPath(of: id) == "_" {
            // update_sequence skip_executed: completed in the replaced instance; never runs again.
            var r = record
            r.outputs[block.id.rawValue] = output
            record = r
            log(.stepCompleted, node: id, step: block.id.rawValue, ["output": output, "precompleted": true])
            finish(id, .completed)
            return
        }
        if let when = step.when {
            switch when.evaluate(scope(for: id)) {
            case .error(let message):
                logStepFailure(id, step: block.id.rawValue, attempt: nil, message: message, code: nil)
                finish(id, .failed, error: error(at: id, message))
                return
            case .value(let v) where !v.isTruthy:
                log(.stepSkipped, node: id, step: block.id.rawValue)
                finish(id, .skipped)
                return
            case .value:
                break
            }
        }
        // A delay fires once per node (§2.3): a node redriven after it fired does not wait again.
        if let delay = step.delay, !runtime[id].progress.delayDone {
            var node = runtime[id]
            if node.progress.jitterMs == nil {
                let scope = scope(for: id)
                node.progress.jitterMs = delay.jitterMilliseconds > 0
                    ? Int64(scope.random.next() % UInt64(delay.jitterMilliseconds + 1)) : 0
            }
            node.phase = .delaying
            node.dueAt = now + delay.durationMilliseconds + (node.progress.jitterMs ?? 0)
            runtime[id] = node
            return
        }
        proceedToDispatch(id, step: step)
    }

    /// Phase 3 on: device conditions, handler registration, then queue for a slot.
    mutating func proceedToDispatch(_ id: NodeID, step: StepBlock) {
        var node = runtime[id]
        node.dueAt = nil
        if let runWhen = step.runWhen, !context.conditions.satisfies(runWhen) {
            node.state = .waiting
            node.phase = .awaitingConditions
            runtime[id] = node
            return
        }
        if !context.isHandlerRegistered(step.handler) {
            node.state = .waiting
            node.phase = .awaitingHandler
            runtime[id] = node
            return
        }
        node.state = .running
        node.phase = .queued
        runtime[id] = node
        effect(.enqueue(id))
    }

    /// Re-checks nodes waiting on device conditions or handler registrations.
    mutating func recheckBlockedSteps() {
        for node in runtime.activeNodes where node.phase == .awaitingConditions || node.phase == .awaitingHandler {
            guard let block = runtime.block(of: node.id), case .step(let s) = block.kind else { continue }
            proceedToDispatch(node.id, step: s)
        }
        for var node in runtime.activeNodes where node.isAwaitingEscalationHandler {
            guard let block = runtime.block(of: node.id), case .step(let s) = block.kind,
                context.isHandlerRegistered(s.waitForInput?.escalationHandler ?? s.handler)
            else { continue }
            node.state = .running
            runtime[node.id] = node
            effect(.enqueue(node.id))
        }
        deriveState()
        drain()
    }

    // MARK: Attempts

    /// Turns a queued node into an in-flight attempt: resolves params, records the dispatch.
    ///
    /// - Returns: the call to make, or `nil` when the node is no longer runnable (then the
    ///   transition that happened instead — a failure, a wait — is recorded).
    mutating func beginAttempt(_ id: NodeID) -> HandlerCall? {
        var node = runtime[id]
        guard !node.state.isTerminal, node.phase == .queued || (node.phase == .escalating && node.progress.idempotencyKey == nil),
            let block = runtime.block(of: id), case .step(let step) = block.kind
        else { return nil }
        let isEscalation = node.phase == .escalating
        let handler = isEscalation ? (step.waitForInput?.escalationHandler ?? step.handler) : step.handler
        if !isEscalation {
            if let runWhen = step.runWhen, !context.conditions.satisfies(runWhen) {
                node.state = .waiting
                node.phase = .awaitingConditions
                runtime[id] = node
                deriveState()
                return nil
            }
        }
        if !context.isHandlerRegistered(handler) {
            if isEscalation {
                // Waits for the escalation handler (SEMANTICS §6.2), still escalating:
                // registering it queues the call (``recheckBlockedSteps()``).
                node.progress.idempotencyKey = nil
                node.state = .waiting
                runtime[id] = node
                deriveState()
                return nil
            }
            node.state = .waiting
            node.phase = .awaitingHandler
            runtime[id] = node
            deriveState()
            return nil
        }
        let limit = Int(context.configuration.maxStepsPerInstance)
        // The budget bounds the instance's own run: on_failure / on_cancel steps run after it
        // ended (often because the budget was spent) and are not held back by it.
        if limit > 0 && !record.state.isTerminal && record.stepsExecuted + 1 > limit {
            failInstance("max steps per instance (\(limit)) exceeded")
            return nil
        }
        let attempt = isEscalation ? node.attempt : node.attempt + 1
        // Static params need no scope (building one formats timestamps): only the data.
        let data = scopeData(for: id)
        let params: JSONValue
        do {
            params = step.params.isStatic ? step.params.original : try step.params.resolve(scope(for: id, attempt: attempt))
        } catch {
            logStepFailure(id, step: block.id.rawValue, attempt: attempt, message: error.description, code: nil)
            finish(id, .failed, error: self.error(at: id, error.description))
            drain()
            return nil
        }
        let key = "\(runtime.id.rawValue):\(block.id.rawValue):\(runtime.iterationPath(of: id)):\(attempt)"
            + (isEscalation ? ":escalation" : "")
        let timeout = attemptTimeout(step, escalation: isEscalation)
        node.progress.delegationRequestID = nil
        if !isEscalation && params.containsCredentialReference {
            var r = record
            r.stepsExecuted += 1
            record = r
            delegate(id, node: node, params: params, attempt: attempt, key: key, block: block)
            return nil
        }
        node.attempt = attempt
        node.state = .running
        if isEscalation { node.progress.escalations += 1 } else { node.phase = .inFlight }
        node.progress.params = params
        node.progress.idempotencyKey = key
        node.progress.attemptStartedAt = now
        node.dueAt = timeout.map { now + $0 }
        runtime[id] = node
        runtime.updateRecord { $0.stepsExecuted += 1 }
        if !isEscalation && context.engineHandledBuiltins.contains(handler) {
            return runBuiltin(id, handler: handler, params: params, attempt: attempt, key: key, block: block)
        }
        logAttemptStarted(id, block: block, attempt: attempt, handler: handler, params: params, key: key, escalation: isEscalation)
        deriveState()
        return HandlerCall(
            instance: runtime.id, node: id, stepID: block.id.rawValue, handler: handler, params: params,
            data: .object(data), attempt: attempt, idempotencyKey: key, isEscalation: isEscalation, timeoutMs: timeout)
    }

    /// The timeout of one attempt: the step's own (`0` = none), else `handlerTimeoutMs` (`0` =
    /// none); escalation calls always use `handlerTimeoutMs`.
    func attemptTimeout(_ step: StepBlock, escalation: Bool) -> Int64? {
        // At most the longest §1.4 duration, as a step's own: a deadline `now + timeout` must
        // not overflow.
        let configured = min(Int64(clamping: context.configuration.handlerTimeoutMs), SequenceLimits.maxDurationMilliseconds)
        if !escalation, let own = step.timeoutMilliseconds { return own > 0 ? own : nil }
        return configured > 0 ? configured : nil
    }

    /// Journals the start of an attempt (the persisted params never hold resolved secrets).
    mutating func logAttemptStarted(
        _ id: NodeID, block: Block, attempt: Int, handler: String, params: JSONValue, key: String, escalation: Bool
    ) {
        log(
            .stepStarted, node: id, step: block.id.rawValue, attempt: attempt,
            [
                "handler": .string(handler), "params": params, "idempotency_key": .string(key),
                "iteration_path": .string(runtime.iterationPath(of: id)), "escalation": .bool(escalation),
            ])
    }

    // MARK: Delegation (SYNC.md §2.8)

    /// Hands an attempt whose params reference `credentials://` to the sync server: the node
    /// waits (no timeout runs) until a `step_result` for its request id arrives. Without a sync
    /// channel the attempt fails permanently.
    private mutating func delegate(_ id: NodeID, node: Node, params: JSONValue, attempt: Int, key: String, block: Block) {
        var node = node
        node.attempt = attempt
        node.progress.params = params
        node.progress.idempotencyKey = key
        node.progress.attemptStartedAt = now
        node.dueAt = nil
        guard case .step(let step) = block.kind else { return }
        guard context.isChannelConfigured else {
            node.state = .running
            node.phase = .inFlight
            runtime[id] = node
            logAttemptStarted(id, block: block, attempt: attempt, handler: step.handler, params: params, key: key, escalation: false)
            handlerFailed(
                id, attempt: attempt, escalation: false,
                failure: AttemptFailure(
                    message: "credentials:// requires a configured sync channel", code: "credentials_unavailable",
                    isRetryable: false))
            return
        }
        let requestID = context.makeInstanceID().rawValue
        node.state = .waiting
        node.phase = .delegated
        node.progress.delegationRequestID = requestID
        runtime[id] = node
        log(
            .stepDelegated, node: id, step: block.id.rawValue, attempt: attempt,
            [
                "request_id": .string(requestID), "handler": .string(step.handler), "params": params,
                "idempotency_key": .string(key), "iteration_path": .string(runtime.iterationPath(of: id)),
            ])
        deriveState()
    }

    /// The node waiting on delegation `requestID`, if any.
    func delegatedNode(requestID: String) -> NodeID? {
        runtime.activeNodes.first { $0.phase == .delegated && $0.progress.delegationRequestID == requestID }?.id
    }

    /// Applies a `step_result`: with `resolvedParams` the attempt runs now with them (they are
    /// never persisted: the journal and the node keep the unresolved params); with a failure the
    /// attempt fails permanently.
    ///
    /// - Returns: the call to make, or `nil` when the request id is unknown or superseded, or the
    ///   resolution failed.
    mutating func delegationResolved(requestID: String, resolvedParams: JSONValue?, error: String?) -> HandlerCall? {
        guard let id = delegatedNode(requestID: requestID), let block = runtime.block(of: id),
            case .step(let step) = block.kind
        else { return nil }
        var node = runtime[id]
        node.state = .running
        node.phase = .inFlight
        node.progress.attemptStartedAt = now
        let timeout = attemptTimeout(step, escalation: false)
        // The timeout starts when the call is launched (it may wait for a free handler slot).
        node.dueAt = nil
        runtime[id] = node
        let key = node.progress.idempotencyKey ?? ""
        logAttemptStarted(id, block: block, attempt: node.attempt, handler: step.handler, params: node.progress.params ?? .null, key: key, escalation: false)
        guard let resolvedParams else {
            handlerFailed(
                id, attempt: node.attempt, escalation: false,
                failure: AttemptFailure(
                    message: "credential resolution failed: \(error ?? "no reason given")", code: "credential_resolution_failed",
                    isRetryable: false))
            return nil
        }
        deriveState()
        return HandlerCall(
            instance: runtime.id, node: id, stepID: block.id.rawValue, handler: step.handler, params: resolvedParams,
            data: .object(scopeData(for: id)), attempt: node.attempt, idempotencyKey: key, isEscalation: false, timeoutMs: timeout)
    }

    /// After a restart, an attempt that was running with resolved secrets cannot be re-run (they
    /// were never stored): it is delegated again with a new request id, the same attempt number
    /// and idempotency key (SYNC.md §2.8 rule 6).
    ///
    /// - Returns: whether the node was delegated again.
    mutating func delegateAgainIfSecretsWereLost(_ id: NodeID) -> Bool {
        let node = runtime[id]
        guard node.phase == .inFlight, node.progress.delegationRequestID != nil, let block = runtime.block(of: id),
            let params = node.progress.params, let key = node.progress.idempotencyKey
        else { return false }
        delegate(id, node: node, params: params, attempt: node.attempt, key: key, block: block)
        return true
    }

    /// Carries out `sleep` (a durable timer) and `set` (a data merge) without a handler call.
    private mutating func runBuiltin(
        _ id: NodeID, handler: String, params: JSONValue, attempt: Int, key: String, block: Block
    ) -> HandlerCall? {
        logAttemptStarted(id, block: block, attempt: attempt, handler: handler, params: params, key: key, escalation: false)
        if handler == "sleep" {
            guard let ms = BuiltinHandlers.sleepMilliseconds(params) else {
                var node = runtime[id]
                node.phase = .inFlight
                runtime[id] = node
                handlerFailed(
                    id, attempt: attempt, escalation: false,
                    failure: AttemptFailure(
                        message: "sleep needs params {\"ms\": N}, {\"seconds\": N} or {\"duration\": N}, at least 0 and at most 2^53 ms",
                        code: "invalid_params", isRetryable: false))
                return nil
            }
            var node = runtime[id]
            node.phase = .sleeping
            node.dueAt = now + ms
            runtime[id] = node
            deriveState()
            return nil
        }
        // set: merge the params into context.data and record them as the output, all or
        // nothing (a step that fails leaves the data as it was).
        var node = runtime[id]
        node.phase = .inFlight
        runtime[id] = node
        var merged: JSONObject?
        if case .object(let values) = params { merged = values }
        handlerSucceeded(id, attempt: attempt, escalation: false, output: params, merging: merged)
        return nil
    }

    /// The call to re-make for an attempt that was in flight when the process died (same
    /// attempt, params and key).
    func resumedCall(_ id: NodeID) -> HandlerCall? {
        let node = runtime[id]
        guard let block = runtime.block(of: id), case .step(let step) = block.kind,
            let key = node.progress.idempotencyKey, node.phase == .inFlight || node.phase == .escalating
        else { return nil }
        let isEscalation = node.phase == .escalating
        let timeout: Int64? = node.dueAt.map { $0 - (node.progress.attemptStartedAt ?? now) }
        return HandlerCall(
            instance: runtime.id, node: id, stepID: block.id.rawValue,
            handler: isEscalation ? (step.waitForInput?.escalationHandler ?? step.handler) : step.handler,
            params: node.progress.params ?? .null, data: .object(scopeData(for: id)), attempt: node.attempt,
            idempotencyKey: key, isEscalation: isEscalation, timeoutMs: timeout)
    }

    /// Whether a result for `attempt` of `id` is still wanted.
    func isCurrent(_ id: NodeID, attempt: Int, escalation: Bool) -> Bool {
        guard id.rawValue < runtime.allNodes.count else { return false }
        let node = runtime[id]
        guard !node.state.isTerminal, node.attempt == attempt, node.progress.idempotencyKey != nil else { return false }
        return escalation ? node.phase == .escalating : node.phase == .inFlight
    }

    // MARK: Results

    /// Records a successful attempt: the output, or the failure its size causes.
    ///
    /// - Parameter merging: members the built-in `set` merges into `context.data` with the
    ///   output; they are undone with it when the write breaks the size limit.
    mutating func handlerSucceeded(
        _ id: NodeID, attempt: Int, escalation: Bool, output: JSONValue, merging: JSONObject? = nil
    ) {
        guard isCurrent(id, attempt: attempt, escalation: escalation), let block = runtime.block(of: id),
            case .step(let step) = block.kind
        else { return }
        // Measured without writing the text; past the limit the exact size is counted for the message.
        if JSONWriter.byteCount(output, limit: PayloadLimits.maxOutputBytes) == nil {
            let size = JSONWriter.byteCount(output) ?? 0
            handlerFailed(
                id, attempt: attempt, escalation: escalation,
                failure: AttemptFailure(
                    message: "handler output is \(size) bytes, more than the limit of \(PayloadLimits.maxOutputBytes)",
                    code: "output_too_large", isRetryable: false))
            return
        }
        if escalation {
            var node = runtime[id]
            node.progress.idempotencyKey = nil
            runtime[id] = node
            log(.stepSucceeded, node: id, step: block.id.rawValue, attempt: attempt, ["output": output, "escalation": true])
            switch acceptInput(id, step: step, payload: output) {
            case .accepted: break
            case .rejected(let message):
                let text = "escalation handler output rejected: \(message)"
                logStepFailure(id, step: block.id.rawValue, attempt: attempt, message: text, code: nil, escalation: true)
                finish(id, .failed, error: error(at: id, text))
            }
            drain()
            return
        }
        // Record the output: outputs.<id> and context.data.<id>. Both objects are changed in
        // place on the runtime (a copy would cost a step time linear in the data's size) and
        // the data change is undone when it breaks the size limit.
        let key = block.id.rawValue
        var replaced: [(String, JSONValue?)] = []
        for (member, value) in merging ?? [:] {
            replaced.append((member, runtime.record.data[member]))
            _ = runtime.setDataMember(member, to: value)
        }
        let previous = runtime.record.data[key]
        let size = runtime.setDataMember(key, to: output)
        if size > PayloadLimits.maxDataBytes {
            _ = runtime.setDataMember(key, to: previous)
            for (member, value) in replaced.reversed() { _ = runtime.setDataMember(member, to: value) }
            logStepFailure(id, step: key, attempt: attempt, message: Self.dataSizeMessage(size), code: nil)
            finish(id, .failed, error: error(at: id, Self.dataSizeMessage(size)))
            drain()
            return
        }
        runtime.setOutput(key, to: output)
        log(
            .stepSucceeded, node: id, step: block.id.rawValue, attempt: attempt,
            ["output": output, "idempotency_key": runtime[id].progress.idempotencyKey.map(JSONValue.string) ?? .null])
        var node = runtime[id]
        node.progress.idempotencyKey = nil
        node.dueAt = nil
        if let wait = step.waitForInput {
            let waitID = "\(runtime.id.rawValue):\(id.rawValue):\(attempt)"
            node.state = .waiting
            node.phase = .awaitingInput
            node.progress.waitID = waitID
            node.progress.waitOpenedAt = now
            node.dueAt = wait.timeoutMilliseconds.map { now + $0 }
            runtime[id] = node
            var payload: JSONObject = [
                "handler": .string(step.handler), "prompt": .string(wait.prompt), "wait_id": .string(waitID),
            ]
            payload["choices"] = wait.choices.map { .array($0.map { ["label": .string($0.label), "value": .string($0.value)] }) } ?? .null
            payload["store_as"] = wait.storeAs.map(JSONValue.string) ?? .null
            payload["timeout_at"] = node.dueAt.map { .integer($0) } ?? .null
            log(.stepPending, node: id, step: block.id.rawValue, attempt: attempt, .object(payload))
        } else {
            runtime[id] = node
            log(.stepCompleted, node: id, step: block.id.rawValue, attempt: attempt, ["output": output])
            finish(id, .completed)
        }
        drain()
    }

    func dataSizeProblem(_ data: JSONObject) -> String? {
        guard JSONWriter.byteCount(.object(data), limit: PayloadLimits.maxDataBytes) == nil else { return nil }
        return Self.dataSizeMessage(JSONWriter.byteCount(.object(data)) ?? 0)
    }

    static func dataSizeMessage(_ size: Int) -> String {
        "context.data would be \(size) bytes, more than the limit of \(PayloadLimits.maxDataBytes)"
    }

    /// Journals a step failure no handler error reports (a `when` or template error, a wait
    /// timeout, a rejected escalation output, data over its limit), so the step's history and
    /// the listener's `onStepFailed` see every way a step fails. No retry follows any of them.
    mutating func logStepFailure(_ id: NodeID, step: String, attempt: Int?, message: String, code: String?, escalation: Bool = false) {
        var payload: JSONObject = ["error": .string(message), "code": code.map(JSONValue.string) ?? .null, "will_retry": false]
        if escalation { payload["escalation"] = true }
        log(.stepFailed, node: id, step: step, attempt: attempt, .object(payload))
    }

    mutating func handlerFailed(_ id: NodeID, attempt: Int, escalation: Bool, failure: AttemptFailure) {
        guard isCurrent(id, attempt: attempt, escalation: escalation), let block = runtime.block(of: id),
            case .step(let step) = block.kind
        else { return }
        var node = runtime[id]
        let key = node.progress.idempotencyKey
        node.progress.idempotencyKey = nil
        node.dueAt = nil
        runtime[id] = node
        if escalation {
            log(.stepFailed, node: id, step: block.id.rawValue, attempt: attempt, [
                "error": .string(failure.message), "code": failure.code.map(JSONValue.string) ?? .null,
                "will_retry": false, "escalation": true,
            ])
            finish(id, .failed, error: error(at: id, "escalation handler failed: \(failure.message)", code: failure.code))
            drain()
            return
        }
        let backoff = retryBackoff(id, step: step, attempt: attempt, failure: failure)
        log(.stepFailed, node: id, step: block.id.rawValue, attempt: attempt, [
            "error": .string(failure.message), "code": failure.code.map(JSONValue.string) ?? .null,
            "will_retry": .bool(backoff != nil), "idempotency_key": key.map(JSONValue.string) ?? .null,
        ])
        if let backoff {
            node = runtime[id]
            node.phase = .backoff
            node.dueAt = now + backoff
            runtime[id] = node
        } else {
            finish(id, .failed, error: error(at: id, failure.message, code: failure.code))
        }
        drain()
    }

    /// The backoff before the next attempt, or `nil` when the node must fail (SEMANTICS §2.6).
    func retryBackoff(_ id: NodeID, step: StepBlock, attempt: Int, failure: AttemptFailure) -> Int64? {
        guard failure.isRetryable, let retry = step.retry else { return nil }
        let attemptsSoFar = attempt - runtime[id].progress.budgetStart
        // `> maxAttempts`, not `>= maxAttempts + 1`: max_attempts may be Int.max.
        if attemptsSoFar > retry.maxAttempts { return nil }
        if let code = failure.code, retry.nonRetryableCodes.contains(code) { return nil }
        if let retryIf = retry.retryIf {
            var data = record.data
            var errorObject: JSONObject = ["message": .string(failure.message)]
            if let code = failure.code { errorObject["code"] = .string(code) }
            data["_error"] = .object(errorObject)
            guard case .value(let v) = retryIf.evaluate(scope(for: id, dataOverride: data)), v.isTruthy else { return nil }
        }
        return retry.backoffMilliseconds(beforeRetry: attemptsSoFar)
    }

    // MARK: Timers

    /// Fires the node's timer if it is due.
    mutating func timerFired(_ id: NodeID) {
        guard id.rawValue < runtime.allNodes.count else { return }
        let node = runtime[id]
        guard !node.state.isTerminal, let due = node.dueAt, due <= now, let block = runtime.block(of: id) else { return }
        switch (node.phase, block.kind) {
        case (.delaying, .step(let step)):
            var n = node
            n.progress.delayDone = true
            runtime[id] = n
            proceedToDispatch(id, step: step)
        case (.backoff, .step(let step)):
            proceedToDispatch(id, step: step)
        case (.inFlight, .step(let step)):
            let limit = due.saturatingMinus(node.progress.attemptStartedAt ?? due)
            effect(.cancelHandler(id))
            handlerFailed(
                id, attempt: node.attempt, escalation: false,
                failure: AttemptFailure(
                    message: "handler '\(step.handler)' timed out after \(limit) ms", code: "timeout", isRetryable: true))
            return
        case (.escalating, .step(let step)):
            effect(.cancelHandler(id))
            let limit = due.saturatingMinus(node.progress.attemptStartedAt ?? due)
            handlerFailed(
                id, attempt: node.attempt, escalation: true,
                failure: AttemptFailure(
                    message: "handler '\(step.waitForInput?.escalationHandler ?? step.handler)' timed out after \(limit) ms",
                    code: "timeout", isRetryable: false))
            return
        case (.awaitingInput, .step(let step)):
            let timeout = step.waitForInput?.timeoutMilliseconds ?? 0
            var n = node
            n.progress.waitID = nil
            n.dueAt = nil
            if step.waitForInput?.escalationHandler != nil {
                n.state = .running
                n.phase = .escalating
                n.progress.idempotencyKey = nil
                runtime[id] = n
                effect(.enqueue(id))
            } else {
                runtime[id] = n
                let message = "wait_for_input on step '\(block.id)' timed out after \(timeout) ms"
                logStepFailure(id, step: block.id.rawValue, attempt: n.attempt, message: message, code: "timeout")
                finish(id, .failed, error: error(at: id, message, code: "timeout"))
            }
        case (.sleeping, .step):
            var n = node
            n.phase = .inFlight
            runtime[id] = n
            let slept = due.saturatingMinus(node.progress.attemptStartedAt ?? due)
            handlerSucceeded(id, attempt: node.attempt, escalation: false, output: ["slept_ms": .integer(slept)])
            return
        case (.polling, .loop(let loop)):
            var n = node
            n.phase = .active
            n.dueAt = nil
            runtime[id] = n
            loopNextIteration(id, loop: loop)
        default:
            break
        }
        drain()
    }

    // MARK: Human input (SEMANTICS §2.9)

    enum InputDecision {
        case accepted
        case rejected(String)
    }

    /// Applies a completeStep payload to an open wait (or an escalation output).
    mutating func acceptInput(_ id: NodeID, step: StepBlock, payload: JSONValue) -> InputDecision {
        guard case .object(let object) = payload else {
            return .rejected("output must be a JSON object, got \(payload.typeName)")
        }
        let value = object["value"] ?? payload
        if let choices = step.waitForInput?.choices {
            let allowed = choices.map(\.value)
            // Byte for byte, as routers compare strings: a canonically equivalent spelling
            // (é composed vs decomposed) is another value, which a route would not match.
            guard case .string(let s) = value, allowed.contains(where: { $0.utf8.elementsEqual(s.utf8) }) else {
                let shown: String = {
                    if case .string(let s) = value { return s }
                    return JSONWriter.string(value)
                }()
                return .rejected("value '\(shown)' is not one of the choices: \(allowed.joined(separator: ", "))")
            }
        }
        guard let block = runtime.block(of: id) else { return .rejected("unknown step") }
        let key = step.waitForInput?.storeAs ?? block.id.rawValue
        var data = record.data
        data[key] = value
        let sizeProblem = dataSizeProblem(data)
        if sizeProblem == nil {
            var r = record
            r.data = data
            record = r
        }
        log(
            .inputReceived, node: id, step: block.id.rawValue, attempt: runtime[id].attempt,
            ["payload": payload, "value": value, "wait_id": runtime[id].progress.waitID.map(JSONValue.string) ?? .null])
        var node = runtime[id]
        node.progress.waitID = nil
        runtime[id] = node
        if let sizeProblem {
            // SEMANTICS §1.7: a valid answer whose write would take context.data past its
            // limit is taken, and the write fails the node that made it (catchable).
            logStepFailure(id, step: block.id.rawValue, attempt: runtime[id].attempt, message: sizeProblem, code: nil)
            finish(id, .failed, error: error(at: id, sizeProblem))
            return .accepted
        }
        finish(id, .completed)
        return .accepted
    }

    /// Open waits of `stepID`, oldest first: by the time each opened, then in tree order.
    func openWaits(of stepID: String) -> [Node] {
        runtime.activeNodes
            .filter { node in node.phase == .awaitingInput && runtime.block(of: node.id)?.id.rawValue.utf8.elementsEqual(stepID.utf8) == true }
            .map { (opened: $0.progress.waitOpenedAt ?? $0.progress.attemptStartedAt ?? 0, order: runtime.treeOrderKey(of: $0.id), node: $0) }
            .sorted { ($0.opened, $0.order) < ($1.opened, $1.order) }
            .map(\.node)
    }

    /// The `invalidState` error of a `completeStep` that finds no open wait (SEMANTICS §2.9),
    /// naming the state of the step's latest node (`pending` when it never ran), whether the
    /// instance is running or finished (`context["instance_state"]` tells which).
    static func stepNotWaiting(_ stepID: String, of runtime: InstanceRuntime) -> StepwiseError {
        let latest = runtime.allNodes.last { runtime.block(of: $0.id)?.id.rawValue.utf8.elementsEqual(stepID.utf8) == true }
        let state = latest?.state.rawValue ?? "pending"
        // A step id the sequence does not have is said so, not shown as a step yet to run.
        let known = runtime.program.blocks.contains { block in
            if case .step = block.kind { return block.id.rawValue.utf8.elementsEqual(stepID.utf8) }
            return false
        }
        let why = known || latest != nil ? "state: \(state)" : "\(runtime.program.key.name) v\(runtime.program.key.version) has no step '\(stepID)'"
        return StepwiseError(
            .invalidState, "step '\(stepID)' of instance \(runtime.id) is not waiting (\(why))",
            context: [
                "instance_id": .string(runtime.id.rawValue), "step_id": .string(stepID), "state": .string(state),
                "instance_state": .string(runtime.record.state.rawValue),
            ])
    }

    /// completeStep (SEMANTICS §2.9): checks in order, then applies atomically.
    ///
    /// - Throws: ``StepwiseError`` `invalidState` (no open wait) or `invalidInput`; nothing changes then.
    mutating func completeStep(stepID: String, payload: JSONValue, waitID: String?) throws(StepwiseError) {
        let waits = openWaits(of: stepID)
        let target: Node?
        if let waitID {
            target = waits.first { $0.progress.waitID == waitID }
        } else {
            target = waits.first
        }
        guard let node = target, let block = runtime.block(of: node.id), case .step(let step) = block.kind else {
            if let waitID, !waits.isEmpty {
                // The step waits, just not under that id.
                let open = waits.compactMap(\.progress.waitID).joined(separator: ", ")
                throw StepwiseError(
                    .invalidState, "step '\(stepID)' of instance \(runtime.id) has no open wait '\(waitID)' (open: \(open))",
                    context: ["instance_id": .string(runtime.id.rawValue), "step_id": .string(stepID), "wait_id": .string(waitID)])
            }
            throw Self.stepNotWaiting(stepID, of: runtime)
        }
        guard case .object = payload else {
            throw StepwiseError(.invalidInput, "output must be a JSON object, got \(payload.typeName)")
        }
        let size = JSONWriter.bytes(payload).count
        if size > PayloadLimits.maxOutputBytes {
            throw StepwiseError(
                .invalidInput, "output is \(size) bytes, more than the limit of \(PayloadLimits.maxOutputBytes)")
        }
        switch acceptInput(node.id, step: step, payload: payload) {
        case .accepted: drain()
        case .rejected(let message):
            throw StepwiseError(
                .invalidInput, message, context: ["instance_id": .string(runtime.id.rawValue), "step_id": .string(stepID)])
        }
    }
}
