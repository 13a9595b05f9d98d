import StepwiseSequences
public import StepwiseJSON

/// A point-in-time view of an instance for hosts and tools (SEMANTICS §6.3).
public struct InstanceSnapshot: Sendable, Hashable {
    /// The instance id.
    public let id: InstanceID
    /// Sequence name.
    public let sequenceName: String
    /// Pinned version.
    public let sequenceVersion: Int
    /// State.
    public let state: InstanceState
    /// `context.data`.
    public let data: JSONObject
    /// `context.config`.
    public let config: JSONObject
    /// Latest output per block id.
    public let outputs: JSONObject
    /// The first open wait in tree order, else the most recently started running step.
    public let currentStep: String?
    /// Open waits.
    public let waits: [PendingStep]
    /// The error of a failed instance.
    public let error: InstanceError?
    /// Whether cancellation was requested.
    public let cancelRequested: Bool
    /// The parent of a sub_sequence child.
    public let parentInstanceId: InstanceID?
    /// The dedup key.
    public let dedupKey: String?
    /// Created, Unix ms.
    public let createdAt: Int64
    /// Last change, Unix ms.
    public let updatedAt: Int64
    /// Finished, Unix ms.
    public let finishedAt: Int64?
    /// Why nothing is running, for waiting instances ("why isn't this running?").
    public let waitingReasons: [String]
    /// Whether the on_failure / on_cancel hooks are still running.
    public let hooksRunning: Bool
}

/// An open `wait_for_input`, for UIs (SEMANTICS §6.3).
public struct PendingStep: Sendable, Hashable {
    /// The wait id.
    public let waitId: String
    /// The instance.
    public let instanceId: InstanceID
    /// The step's block id.
    public let stepId: String
    /// The step's handler.
    public let handler: String
    /// The prompt.
    public let prompt: String
    /// Choices as (label, value), when restricted.
    public let choices: [(label: String, value: String)]?
    /// Where the answer is stored.
    public let storeAs: String?
    /// When the wait opened, Unix ms.
    public let since: Int64?
    /// When it times out, Unix ms.
    public let timeoutAt: Int64?

    public static func == (lhs: PendingStep, rhs: PendingStep) -> Bool {
        lhs.waitId == rhs.waitId && lhs.stepId == rhs.stepId && lhs.prompt == rhs.prompt
            && lhs.choices?.map(\.value) == rhs.choices?.map(\.value) && lhs.timeoutAt == rhs.timeoutAt
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(waitId)
        hasher.combine(stepId)
    }
}

extension StepwiseEngine {
    /// A snapshot of one instance.
    ///
    /// - Throws: ``StepwiseError`` `notFound`, `storage`, `shutdown`.
    public func instance(_ id: InstanceID) throws(StepwiseError) -> InstanceSnapshot {
        try checkOpen()
        let runtime: InstanceRuntime
        if let live = live[id] {
            runtime = live
        } else if let loaded = try store.loadInstance(id) {
            // A damaged stored tree, or a stored sequence that no longer loads (the instance
            // was failed for it at open), still shows the instance's state, data and error,
            // without its steps.
            let record = loaded.0
            var program = Self.placeholderProgram(record.sequence)
            do {
                program = try self.program(for: record.sequence)
                runtime = try InstanceRuntime(record: record, program: program, nodes: loaded.1)
            } catch {
                return snapshot(of: InstanceRuntime(record: record, program: program), unexplained: record.state.isTerminal ? nil : error.message)
            }
        } else {
            throw StepwiseError(.notFound, "instance \(id) not found", context: ["instance_id": .string(id.rawValue)])
        }
        return snapshot(of: runtime)
    }

    /// A program without blocks for `key`: what a snapshot of an instance uses when its stored
    /// sequence cannot be loaded.
    static func placeholderProgram(_ key: SequenceKey) -> SequenceProgram {
        SequenceProgram(
            CompiledSequence(
                name: key.name, version: key.version, isDeprecated: false, blocks: [], onFailure: nil, onCancel: nil,
                envelope: [:], sourceBytes: [], handlerNames: [], blockCount: 0))
    }

    /// - Parameter unexplained: why the instance cannot be looked into (its stored tree or
    ///   sequence is damaged): the reason it is not running.
    func snapshot(of runtime: InstanceRuntime, unexplained: String? = nil) -> InstanceSnapshot {
        let record = runtime.record
        var waits: [PendingStep] = []
        var reasons: [String] = []
        var lastRunning: (Int64, String)?
        // Tree order: waits (and so `currentStep`, the first of them) as the blocks are written,
        // whatever order their nodes were created in.
        let ordered = runtime.activeNodes.map { (key: runtime.treeOrderKey(of: $0.id), node: $0) }.sorted { $0.key < $1.key }
        for node in ordered.map(\.node) {
            guard let block = runtime.block(of: node.id), case .step(let step) = block.kind else {
                if node.phase == .awaitingChild { reasons.append("\(block(runtime, node)) waits for child instance \(node.progress.childInstance ?? "?")") }
                if node.phase == .polling, let due = node.dueAt { reasons.append("loop '\(block(runtime, node))' polls again at \(Timestamp.rfc3339(due))") }
                continue
            }
            switch node.phase {
            case .awaitingInput:
                waits.append(
                    PendingStep(
                        waitId: node.progress.waitID ?? "", instanceId: record.id, stepId: block.id.rawValue,
                        handler: step.handler, prompt: step.waitForInput?.prompt ?? "",
                        choices: step.waitForInput?.choices?.map { ($0.label, $0.value) },
                        storeAs: step.waitForInput?.storeAs, since: node.progress.waitOpenedAt ?? node.progress.attemptStartedAt,
                        timeoutAt: node.dueAt))
                reasons.append("step '\(block.id)' waits for input")
            case .awaitingConditions:
                let why = step.runWhen.flatMap { conditions.unmetReason($0) } ?? "device conditions unmet"
                reasons.append("step '\(block.id)' waits for device conditions: \(why)")
            case .awaitingHandler:
                reasons.append("step '\(block.id)' waits for handler '\(step.handler)' to be registered")
            case .delaying, .backoff:
                if let due = node.dueAt {
                    reasons.append("step '\(block.id)' \(node.phase == .delaying ? "is delayed" : "backs off before a retry") until \(Timestamp.rfc3339(due))")
                }
                // A step behind a delay or backoff timer is running (SEMANTICS §2.1).
                if let started = node.startedAt, lastRunning == nil || started >= lastRunning!.0 {
                    lastRunning = (started, block.id.rawValue)
                }
            case .escalating where node.isAwaitingEscalationHandler:
                let handler = step.waitForInput?.escalationHandler ?? step.handler
                reasons.append("step '\(block.id)' waits for escalation handler '\(handler)' to be registered")
            case .delegated:
                reasons.append("step '\(block.id)' waits for the sync server to resolve its credentials:// params")
            case .inFlight, .queued, .escalating, .sleeping:
                if let started = node.startedAt, lastRunning == nil || started >= lastRunning!.0 {
                    lastRunning = (started, block.id.rawValue)
                }
            default:
                break
            }
        }
        if record.isPaused { reasons.insert("instance is paused", at: 0) }
        if let unexplained { reasons.append(unexplained) }
        return InstanceSnapshot(
            id: record.id, sequenceName: record.sequence.name, sequenceVersion: record.sequence.version,
            state: record.state, data: record.data, config: record.config, outputs: record.outputs,
            currentStep: waits.first?.stepId ?? lastRunning?.1, waits: waits, error: record.error,
            cancelRequested: record.cancelRequested, parentInstanceId: record.parentInstance, dedupKey: record.dedupKey,
            createdAt: record.createdAt, updatedAt: record.updatedAt, finishedAt: record.finishedAt,
            waitingReasons: reasons, hooksRunning: record.hooks == .running)
    }

    private func block(_ runtime: InstanceRuntime, _ node: Node) -> String {
        runtime.block(of: node.id)?.id.rawValue ?? "root"
    }

    /// Every open wait of every live instance.
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`.
    public func pendingWaits() throws(StepwiseError) -> [PendingStep] {
        try checkOpen()
        return live.values.sorted { $0.id < $1.id }.flatMap { snapshot(of: $0).waits }
    }

    /// The journal (history) of an instance, in commit order.
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`.
    public func history(of id: InstanceID) throws(StepwiseError) -> [JournalEntry] {
        try checkOpen()
        return try store.journal(of: id)
    }

    /// Ids of live children of `id` (sub_sequence instances).
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`.
    public func childInstances(of id: InstanceID) throws(StepwiseError) -> [InstanceID] {
        try checkOpen()
        return try store.instances(matching: InstanceFilter(parent: id), limit: 500, after: nil).map(\.id)
    }
}
