import Stepwise

/// JSON forms of the engine's views, shared by `show`, `instances` and `run --json`.
enum InstanceReport {
    /// An instance with its waits, why it is not running, its attempts and its answers.
    static func json(
        _ snapshot: InstanceSnapshot, runs: [StepRun], history: [JournalEntry], children: [InstanceID]
    ) -> JSONValue {
        var o: JSONObject = [
            "id": .string(snapshot.id.rawValue), "sequence": .string(snapshot.sequenceName),
            "version": .integer(Int64(snapshot.sequenceVersion)), "state": .string(snapshot.state.rawValue),
        ]
        o["current_step"] = snapshot.currentStep.map(JSONValue.string) ?? .null
        o["waiting_reasons"] = .array(snapshot.waitingReasons.map(JSONValue.string))
        o["waits"] = .array(snapshot.waits.map(json(wait:)))
        o["error"] = snapshot.error?.jsonValue ?? .null
        o["cancel_requested"] = .bool(snapshot.cancelRequested)
        o["hooks_running"] = .bool(snapshot.hooksRunning)
        o["parent_instance_id"] = snapshot.parentInstanceId.map { .string($0.rawValue) } ?? .null
        o["child_instance_ids"] = .array(children.map { .string($0.rawValue) })
        o["dedup_key"] = snapshot.dedupKey.map(JSONValue.string) ?? .null
        o["created_at"] = .integer(snapshot.createdAt)
        o["updated_at"] = .integer(snapshot.updatedAt)
        o["finished_at"] = snapshot.finishedAt.map(JSONValue.integer) ?? .null
        o["data"] = .object(snapshot.data)
        o["config"] = .object(snapshot.config)
        o["outputs"] = .object(snapshot.outputs)
        o["attempts"] = .array(runs.map(json(run:)))
        o["answers"] = .array(
            history.filter { $0.kind == .inputReceived }.map { entry in
                [
                    "step_id": .string(entry.stepID ?? "?"), "value": entry.payload["value"] ?? .null,
                    "payload": entry.payload["payload"] ?? .null, "at": .integer(entry.at),
                ]
            })
        return .object(o)
    }

    /// One handler attempt.
    static func json(run: StepRun) -> JSONValue {
        var o: JSONObject = [
            "step_id": .string(run.stepId), "handler": .string(run.handler),
            "iteration_path": .string(run.iterationPath),
            "attempt": .integer(Int64(run.attempt)), "idempotency_key": .string(run.idempotencyKey),
            "params": run.params,
            "started_at": .integer(run.startedAt),
        ]
        if run.isEscalation { o["escalation"] = true }
        o["finished_at"] = run.finishedAt.map(JSONValue.integer) ?? .null
        o["duration_ms"] = run.finishedAt.map { .integer($0 - run.startedAt) } ?? .null
        if let output = run.output { o["output"] = output }
        if let error = run.error {
            o["error"] = .string(error)
            o["code"] = run.errorCode.map(JSONValue.string) ?? .null
            o["will_retry"] = .bool(run.willRetry)
        }
        if let payload = run.completionPayload { o["completion_payload"] = payload }
        return .object(o)
    }

    /// An open wait.
    static func json(wait: PendingStep) -> JSONValue {
        var o: JSONObject = [
            "wait_id": .string(wait.waitId), "instance_id": .string(wait.instanceId.rawValue),
            "step_id": .string(wait.stepId), "handler": .string(wait.handler), "prompt": .string(wait.prompt),
        ]
        o["choices"] =
            wait.choices.map { .array($0.map { ["label": .string($0.label), "value": .string($0.value)] }) } ?? .null
        o["store_as"] = wait.storeAs.map(JSONValue.string) ?? .null
        o["since"] = wait.since.map(JSONValue.integer) ?? .null
        o["timeout_at"] = wait.timeoutAt.map(JSONValue.integer) ?? .null
        return .object(o)
    }

    /// A row of `instances`.
    static func json(summary: InstanceSummary) -> JSONValue {
        var o: JSONObject = [
            "id": .string(summary.instanceId.rawValue), "sequence": .string(summary.sequenceName),
            "version": .integer(Int64(summary.sequenceVersion)), "state": .string(summary.state.rawValue),
        ]
        o["current_step"] = summary.currentStep.map(JSONValue.string) ?? .null
        o["created_at"] = .integer(summary.createdAt)
        o["updated_at"] = .integer(summary.updatedAt)
        o["parent_instance_id"] = summary.parentInstanceId.map { .string($0.rawValue) } ?? .null
        o["error"] = summary.error.map(JSONValue.string) ?? .null
        return .object(o)
    }

    /// An example answer for `wait` in printed commands: its first choice, else `VALUE`.
    static func answerExample(_ wait: PendingStep) -> String {
        shellQuoted(wait.choices?.first?.value ?? "VALUE")
    }
}
