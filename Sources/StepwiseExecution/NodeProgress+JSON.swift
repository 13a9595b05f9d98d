public import StepwiseJSON

extension NodeProgress {
    /// The progress as a compact JSON object holding only the fields that differ from the defaults.
    public var jsonValue: JSONValue {
        var o = JSONObject()
        if let jitterMs { o["jitter_ms"] = .integer(jitterMs) }
        if delayDone { o["delay_done"] = true }
        if let params { o["params"] = params }
        if let idempotencyKey { o["key"] = .string(idempotencyKey) }
        if let attemptStartedAt { o["attempt_started_at"] = .integer(attemptStartedAt) }
        if let waitOpenedAt { o["wait_opened_at"] = .integer(waitOpenedAt) }
        if let waitID { o["wait_id"] = .string(waitID) }
        if escalations != 0 { o["escalations"] = .integer(Int64(escalations)) }
        if budgetStart != 0 { o["budget_start"] = .integer(Int64(budgetStart)) }
        if let delegationRequestID { o["delegation"] = .string(delegationRequestID) }
        if let chosenList { o["chosen"] = .integer(Int64(chosenList)) }
        if !branchOutcomes.isEmpty {
            o["branches"] = .array(
                branchOutcomes.map { outcome in
                    guard let outcome else { return .null }
                    var b: JSONObject = ["state": .string(outcome.state.rawValue), "at": .integer(outcome.at)]
                    if let e = outcome.error { b["error"] = e.jsonValue }
                    if outcome.wasEmpty { b["empty"] = true }
                    return .object(b)
                })
        }
        if iterations != 0 { o["iterations"] = .integer(Int64(iterations)) }
        if let items { o["items"] = .array(items) }
        if nextIndex != 0 { o["next_index"] = .integer(Int64(nextIndex)) }
        if !activeIterations.isEmpty { o["active"] = .array(activeIterations.map { .integer(Int64($0)) }) }
        if tryPhase != 0 { o["try_phase"] = .integer(Int64(tryPhase)) }
        if let pendingError { o["pending_error"] = pendingError.jsonValue }
        if cancelledDuringTry { o["cancelled"] = true }
        if let childInstance { o["child"] = .string(childInstance) }
        return .object(o)
    }

    /// Reads the JSON form back; unknown or missing fields take their defaults.
    public init(json: JSONValue) {
        self.init()
        func int(_ key: String) -> Int? { json[key]?.exactIntegerValue.map { Int($0) } }
        jitterMs = json["jitter_ms"]?.exactIntegerValue
        delayDone = json["delay_done"]?.boolValue ?? false
        params = json["params"]
        idempotencyKey = json["key"]?.stringValue
        attemptStartedAt = json["attempt_started_at"]?.exactIntegerValue
        waitOpenedAt = json["wait_opened_at"]?.exactIntegerValue
        waitID = json["wait_id"]?.stringValue
        escalations = int("escalations") ?? 0
        budgetStart = int("budget_start") ?? 0
        delegationRequestID = json["delegation"]?.stringValue
        chosenList = int("chosen")
        if case .array(let branches)? = json["branches"] {
            branchOutcomes = branches.map { b in
                guard case .object = b, let state = b["state"]?.stringValue.flatMap(NodeState.init(rawValue:)) else {
                    return nil
                }
                return BranchOutcome(
                    state: state, error: b["error"].flatMap(NodeError.init(json:)), at: b["at"]?.exactIntegerValue ?? 0,
                    wasEmpty: b["empty"]?.boolValue ?? false)
            }
        }
        iterations = int("iterations") ?? 0
        items = json["items"]?.arrayValue
        nextIndex = int("next_index") ?? 0
        activeIterations = json["active"]?.arrayValue?.compactMap { $0.exactIntegerValue.map { Int($0) } } ?? []
        tryPhase = int("try_phase") ?? 0
        pendingError = json["pending_error"].flatMap(NodeError.init(json:))
        cancelledDuringTry = json["cancelled"]?.boolValue ?? false
        childInstance = json["child"]?.stringValue
    }
}
