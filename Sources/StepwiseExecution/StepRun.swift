public import StepwiseJSON

/// One handler attempt of a step, from the history (SEMANTICS §6.3).
public struct StepRun: Sendable, Hashable {
    /// The step's block id.
    public let stepId: String
    /// The node.
    public let node: NodeID
    /// Enclosing loop/for_each indices joined by `.`, or `_`.
    public let iterationPath: String
    /// The attempt number.
    public let attempt: Int
    /// The handler called (the escalation handler for escalations).
    public let handler: String
    /// Whether this was an escalation call.
    public let isEscalation: Bool
    /// The resolved params.
    public let params: JSONValue
    /// The idempotency key.
    public let idempotencyKey: String
    /// The output, when it succeeded.
    public var output: JSONValue?
    /// The error message, when it failed.
    public var error: String?
    /// The error code, when given.
    public var errorCode: String?
    /// Whether a retry followed the failure.
    public var willRetry: Bool
    /// The completeStep payload that closed the step's wait, if any.
    public var completionPayload: JSONValue?
    /// Start, Unix ms.
    public let startedAt: Int64
    /// End, Unix ms (`nil` while in flight or if abandoned).
    public var finishedAt: Int64?
}

extension StepwiseEngine {
    /// Every attempt of every step of an instance, in start order.
    ///
    /// - Throws: ``StepwiseError`` `notFound`, `storage`, `shutdown`.
    public func stepRuns(instanceId: InstanceID) throws(StepwiseError) -> [StepRun] {
        try checkOpen()
        let entries = try store.journal(of: instanceId)
        if entries.isEmpty && live[instanceId] == nil {
            let stored = try store.loadInstance(instanceId)
            if stored != nil { return [] }
            throw StepwiseError(.notFound, "instance \(instanceId) not found")
        }
        var runs: [StepRun] = []
        var index: [String: Int] = [:]
        func key(_ e: JournalEntry, escalation: Bool) -> String {
            "\(e.node?.rawValue ?? -1):\(e.attempt ?? 0):\(escalation)"
        }
        for e in entries {
            let escalation = e.payload["escalation"]?.boolValue ?? false
            switch e.kind {
            case .stepStarted:
                if let existing = index[key(e, escalation: escalation)], runs[existing].finishedAt == nil {
                    // A re-run of the same attempt after a crash: keep the first record.
                    continue
                }
                index[key(e, escalation: escalation)] = runs.count
                runs.append(
                    StepRun(
                        stepId: e.stepID ?? "", node: e.node ?? .root,
                        iterationPath: e.payload["iteration_path"]?.stringValue ?? "_", attempt: e.attempt ?? 1,
                        handler: e.payload["handler"]?.stringValue ?? "", isEscalation: escalation,
                        params: e.payload["params"] ?? .null, idempotencyKey: e.payload["idempotency_key"]?.stringValue ?? "",
                        output: nil, error: nil, errorCode: nil, willRetry: false, completionPayload: nil, startedAt: e.at,
                        finishedAt: nil))
            case .stepSucceeded:
                if let i = index[key(e, escalation: escalation)] {
                    runs[i].output = e.payload["output"]
                    runs[i].finishedAt = e.at
                }
            case .stepFailed:
                if let i = index[key(e, escalation: escalation)] {
                    runs[i].error = e.payload["error"]?.stringValue
                    runs[i].errorCode = e.payload["code"]?.stringValue
                    runs[i].willRetry = e.payload["will_retry"]?.boolValue ?? false
                    runs[i].finishedAt = e.at
                }
            case .inputReceived:
                if let i = runs.lastIndex(where: { $0.node == e.node && !$0.isEscalation }) {
                    runs[i].completionPayload = e.payload["payload"]
                }
            default:
                break
            }
        }
        return runs
    }
}
