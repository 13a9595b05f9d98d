import StepwiseExpressions
import StepwiseJSON

extension SequenceValidator {
    static let stepFields: Set<String> = commonBlockFields.union([
        "handler", "params", "when", "delay", "run_when", "retry", "timeout", "cancellable", "wait_for_input",
    ])
    /// orch8 fields with no effect on orch8 mobile either.
    static let ignoredStepFields: Set<String> = ["queue_name", "fallback_handler", "compensation"]
    /// orch8 fields that could change the path taken: refused rather than silently ignored.
    static let unsupportedStepFields = [
        "deadline", "on_deadline_breach", "send_window", "rate_limit_key", "cache_key", "output_schema",
        "context_access",
    ]

    mutating func step(_ object: JSONObject, at pointer: JSONPointer) -> StepBlock? {
        // `null` sets nothing (an exporter writing every optional field), as for the delay's
        // unsupported fields: only a value could change the path taken.
        for key in Self.unsupportedStepFields where object[key] != nil && object[key] != .null {
            error(pointer.appending(key), .unsupported, "step field '\(key)' is not supported")
        }
        checkFields(
            object, at: pointer, known: FieldKeys.stepAndUnsupportedFields, ignored: FieldKeys.ignoredStepFields)

        var handler: String?
        if let h = string(object, "handler", at: pointer, required: true) {
            if h.allSatisfy(\.isWhitespace) {
                error(pointer.appending("handler"), .emptyHandler, "handler is blank")
            } else {
                handler = h
                noteHandler(h)
            }
        }

        let rawParams = object["params"] ?? .null
        let params = templated(rawParams, at: pointer.appending("params"))

        var when: Expression?
        var whenOK = true
        if let text = string(object, "when", at: pointer) {
            when = condition(text, at: pointer, "when")
            whenOK = when != nil
        } else if object["when"] != nil && !(object["when"]!.isNull) {
            whenOK = false
        }

        let delay = stepDelay(object, at: pointer)
        let runWhen = runWhen(object, at: pointer)
        let retry = retryPolicy(object, at: pointer)
        let timeout = duration(object, "timeout", at: pointer)
        let cancellable = bool(object, "cancellable", at: pointer) ?? true
        let wait = waitForInput(object, at: pointer)

        guard let handler, let params, whenOK, !delay.failed, !runWhen.failed, !retry.failed, !wait.failed else {
            return nil
        }
        return StepBlock(
            handler: handler, rawParams: rawParams, params: params, when: when, delay: delay.value,
            runWhen: runWhen.value, retry: retry.value, timeoutMilliseconds: timeout, isCancellable: cancellable,
            waitForInput: wait.value)
    }

    /// An optional sub-object's outcome: absent, parsed, or failed with problems reported.
    struct FieldOutcome<Value> {
        var value: Value?
        var failed: Bool
        static var absent: FieldOutcome { FieldOutcome(value: nil, failed: false) }
        static var invalid: FieldOutcome { FieldOutcome(value: nil, failed: true) }
    }

    mutating func subObject(_ object: JSONObject, _ key: String, at pointer: JSONPointer) -> (JSONObject?, Bool) {
        guard let value = member(object, key, at: pointer, required: false) else { return (nil, false) }
        guard case .object(let sub) = value else {
            wrongType(pointer, key, expected: "object", got: value)
            return (nil, true)
        }
        return (sub, false)
    }

    mutating func stepDelay(_ object: JSONObject, at pointer: JSONPointer) -> FieldOutcome<StepDelay> {
        let (sub, bad) = subObject(object, "delay", at: pointer)
        guard let sub else { return bad ? .invalid : .absent }
        let p = pointer.appending("delay")
        let before = problems.count
        checkFields(
            sub, at: p,
            known: FieldKeys.delayFields)
        if let b = bool(sub, "business_days_only", at: p), b {
            error(p.appending("business_days_only"), .unsupported, "delay field 'business_days_only: true' is not supported")
        }
        if let holidays = member(sub, "holidays", at: p, required: false) {
            if case .array(let list) = holidays {
                if !list.isEmpty { error(p.appending("holidays"), .unsupported, "delay field 'holidays' is not supported") }
            } else {
                wrongType(p, "holidays", expected: "array", got: holidays)
            }
        }
        for key in ["fire_at_local", "timezone"] where member(sub, key, at: p, required: false) != nil {
            error(p.appending(key), .unsupported, "delay field '\(key)' is not supported")
        }
        let d = duration(sub, "duration", at: p, required: true)
        let jitter = duration(sub, "jitter", at: p) ?? 0
        guard problems.count == before, let d else { return .invalid }
        return FieldOutcome(value: StepDelay(durationMilliseconds: d, jitterMilliseconds: jitter), failed: false)
    }

    mutating func runWhen(_ object: JSONObject, at pointer: JSONPointer) -> FieldOutcome<RunWhen> {
        let (sub, bad) = subObject(object, "run_when", at: pointer)
        guard let sub else { return bad ? .invalid : .absent }
        let p = pointer.appending("run_when")
        let before = problems.count
        checkFields(sub, at: p, known: FieldKeys.runWhenFields)
        var network = RunWhen.Network.any
        if let text = string(sub, "network", at: p) {
            if let n = RunWhen.Network(rawValue: text) {
                network = n
            } else {
                error(
                    p.appending("network"), .wrongType,
                    "network '\(text)' is not one of: \(RunWhen.Network.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        let charging = bool(sub, "charging", at: p)
        let batteryNotLow = bool(sub, "battery_not_low", at: p)
        guard problems.count == before else { return .invalid }
        return FieldOutcome(value: RunWhen(network: network, charging: charging, batteryNotLow: batteryNotLow), failed: false)
    }

    mutating func retryPolicy(_ object: JSONObject, at pointer: JSONPointer) -> FieldOutcome<RetryPolicy> {
        let (sub, bad) = subObject(object, "retry", at: pointer)
        guard let sub else { return bad ? .invalid : .absent }
        let p = pointer.appending("retry")
        let before = problems.count
        checkFields(
            sub, at: p,
            known: FieldKeys.retryFields)
        let maxAttempts = integer(sub, "max_attempts", at: p, required: true)
        if let maxAttempts, maxAttempts <= 0 {
            error(p.appending("max_attempts"), .invalidRetry, "max_attempts \(maxAttempts) must be greater than 0")
        }
        let initial = duration(sub, "initial_backoff", at: p, required: true)
        let maximum = duration(sub, "max_backoff", at: p, required: true)
        if let initial, let maximum, initial > maximum {
            error(
                p, .invalidRetry,
                "initial_backoff \(initial) ms is greater than max_backoff \(maximum) ms")
        }
        var multiplier = 2.0
        if let m = number(sub, "backoff_multiplier", at: p) {
            if m <= 0 {
                error(p.appending("backoff_multiplier"), .invalidRetry, "backoff_multiplier \(m) must be greater than 0")
            }
            multiplier = m
        }
        var retryIf: Expression?
        if let text = string(sub, "retry_if", at: p) {
            if text.allSatisfy(\.isWhitespace) {
                error(p.appending("retry_if"), .invalidRetry, "retry_if is blank")
            } else {
                retryIf = condition(text, at: p, "retry_if")
            }
        }
        var codes: [String] = []
        if let value = member(sub, "non_retryable_codes", at: p, required: false) {
            let cp = p.appending("non_retryable_codes")
            if case .array(let list) = value {
                for (i, element) in list.enumerated() {
                    if case .string(let code) = element {
                        if code.isEmpty {
                            error(cp.appending(i), .invalidRetry, "non_retryable_codes contains an empty string")
                        } else {
                            codes.append(code)
                        }
                    } else {
                        error(cp.appending(i), .wrongType, "non_retryable_codes element: expected string, got \(element.typeName)")
                    }
                }
            } else {
                wrongType(p, "non_retryable_codes", expected: "array of strings", got: value)
            }
        }
        guard problems.count == before, let maxAttempts, let initial, let maximum else { return .invalid }
        return FieldOutcome(
            value: RetryPolicy(
                maxAttempts: Int(clamping: maxAttempts), initialBackoffMilliseconds: initial,
                maxBackoffMilliseconds: maximum, backoffMultiplier: multiplier, retryIf: retryIf,
                nonRetryableCodes: codes),
            failed: false)
    }

    mutating func waitForInput(_ object: JSONObject, at pointer: JSONPointer) -> FieldOutcome<WaitForInput> {
        let (sub, bad) = subObject(object, "wait_for_input", at: pointer)
        guard let sub else { return bad ? .invalid : .absent }
        let p = pointer.appending("wait_for_input")
        let before = problems.count
        checkFields(sub, at: p, known: FieldKeys.waitForInputFields)
        let prompt = string(sub, "prompt", at: p) ?? ""
        let timeout = duration(sub, "timeout", at: p)
        var escalation: String?
        if let h = string(sub, "escalation_handler", at: p) {
            if h.allSatisfy(\.isWhitespace) {
                error(p.appending("escalation_handler"), .emptyHandler, "escalation_handler is blank")
            } else {
                escalation = h
                noteHandler(h)
            }
        }
        var choices: [WaitForInput.Choice]?
        if let value = member(sub, "choices", at: p, required: false) {
            choices = self.choices(value, at: p.appending("choices"))
        }
        var storeAs: String?
        if let s = string(sub, "store_as", at: p) {
            if s.isEmpty {
                error(p.appending("store_as"), .invalidStoreAs, "store_as is empty")
            } else {
                storeAs = s
            }
        }
        let allowComment = bool(sub, "allow_comment", at: p) ?? false
        guard problems.count == before else { return .invalid }
        return FieldOutcome(
            value: WaitForInput(
                prompt: prompt, timeoutMilliseconds: timeout, escalationHandler: escalation, choices: choices,
                storeAs: storeAs, allowComment: allowComment),
            failed: false)
    }

    mutating func choices(_ value: JSONValue, at p: JSONPointer) -> [WaitForInput.Choice]? {
        guard case .array(let list) = value else {
            error(p, .wrongType, "field 'choices': expected array, got \(value.typeName)")
            return nil
        }
        if list.isEmpty {
            error(p, .invalidChoices, "choices is empty; omit it to accept any value")
            return nil
        }
        var result: [WaitForInput.Choice] = []
        result.reserveCapacity(list.count)
        // By UTF-8 bytes, as answers are matched (see InstanceMachine.acceptInput).
        var seen: [[UInt8]: Int] = [:]
        seen.reserveCapacity(list.count)
        for (i, element) in list.enumerated() {
            let ep = p.appending(i)
            guard case .object(let choice) = element else {
                error(ep, .invalidChoices, "choice: expected object with a 'value', got \(element.typeName)")
                continue
            }
            checkFields(choice, at: ep, known: FieldKeys.choiceFields)
            let label = string(choice, "label", at: ep)
            guard case .string(let v)? = choice["value"], !v.isEmpty else {
                let got = choice["value"].map { v in v.stringValue != nil ? "an empty string" : v.typeName } ?? "nothing"
                error(ep.appending("value"), .invalidChoices, "choice value must be a non-empty string, got \(got)")
                continue
            }
            if let first = seen[Array(v.utf8)] {
                error(ep.appending("value"), .invalidChoices, "duplicate choice value '\(v)', first at \(p.appending(first))")
                continue
            }
            seen[Array(v.utf8)] = i
            result.append(WaitForInput.Choice(label: label, value: v))
        }
        return result
    }
}
