import StepwiseCrypto
import StepwiseExpressions
import StepwiseJSON
import StepwiseSequences

/// What a transition needs from outside the instance; everything else is in the instance.
struct TransitionContext {
    /// The engine clock, Unix ms.
    let now: Int64
    let configuration: EngineConfiguration
    let conditions: DeviceConditions
    let isHandlerRegistered: (String) -> Bool
    /// Built-ins the engine carries out itself (`sleep`, `set`) while they are not replaced.
    let engineHandledBuiltins: Set<String>
    /// The latest eligible version of a sequence, or the exact one when a version is given.
    let findSequence: (String, Int?) -> SequenceKey?
    /// A fresh instance id (for sub_sequence children); also the UUIDs of delegation requests.
    let makeInstanceID: () -> InstanceID
    /// Whether a sync channel is configured (`credentials://` params need one).
    var isChannelConfigured = false
}

/// A side effect a transition asks the engine to perform after the transition commits.
enum MachineEffect: Sendable {
    /// The node is runnable: dispatch its handler when a slot is free.
    case enqueue(NodeID)
    /// Tell an in-flight handler call of the node to cancel; its result will be discarded.
    case cancelHandler(NodeID)
    /// Create a child instance for a sub_sequence node (in the same commit).
    case startChild(node: NodeID, child: InstanceID, sequence: SequenceKey, input: JSONObject)
    /// Cancel a child instance.
    case cancelChild(InstanceID)
    /// The instance reached a terminal state.
    case terminated(InstanceState)
}

/// A handler call the engine must make.
struct HandlerCall: Sendable {
    let instance: InstanceID
    let node: NodeID
    let stepID: String
    let handler: String
    let params: JSONValue
    let data: JSONValue
    let attempt: Int
    let idempotencyKey: String
    let isEscalation: Bool
    let timeoutMs: Int64?
}

/// How a handler attempt failed.
struct AttemptFailure: Error, Sendable, Hashable {
    let message: String
    let code: String?
    let isRetryable: Bool
}

/// How one list of a node ended.
enum ListOutcome {
    case completed
    case failed(NodeError)
    case cancelled
}

/// The transitions of one instance: deterministic functions of the instance, the event and the
/// context, recording journal entries and effects.
///
/// Work is processed from a queue rather than by recursion, so a long list of blocks that finish
/// at once never deepens the stack.
struct InstanceMachine {
    let runtime: InstanceRuntime
    let context: TransitionContext
    private(set) var effects: [MachineEffect] = []
    private(set) var journal: [JournalEntry] = []

    private enum Work {
        case enter(NodeID)
        case finished(NodeID)
        case listFinished(parent: NodeID, list: Int, iteration: Int, outcome: ListOutcome)
    }
    private var work: [Work] = []

    init(runtime: InstanceRuntime, context: TransitionContext) {
        self.runtime = runtime
        self.context = context
    }

    var now: Int64 { context.now }
    var record: InstanceRecord {
        get { runtime.record }
        nonmutating set { runtime.replaceRecord(newValue) }
    }

    // MARK: Journal and effects

    mutating func log(
        _ kind: JournalEntry.Kind, node: NodeID? = nil, step: String? = nil, attempt: Int? = nil,
        _ payload: JSONValue = .null
    ) {
        journal.append(
            JournalEntry(instance: runtime.id, node: node, kind: kind, stepID: step, attempt: attempt, at: now, payload: payload))
    }

    mutating func effect(_ e: MachineEffect) { effects.append(e) }

    /// Queues entering a node.
    mutating func workEnter(_ id: NodeID) { work.append(.enter(id)) }

    /// Queues the parent notification for a node that just became terminal.
    mutating func workFinished(_ id: NodeID) { work.append(.finished(id)) }

    // MARK: Driving

    /// Processes queued work until none is left, then derives the instance state.
    mutating func drain() {
        var index = 0
        while index < work.count {
            let item = work[index]
            index += 1
            switch item {
            case .enter(let id): enter(id)
            case .finished(let id): childFinished(id)
            case .listFinished(let parent, let list, let iteration, let outcome):
                listFinished(parent: parent, list: list, iteration: iteration, outcome: outcome)
            }
            if index > 4096 {
                work.removeFirst(index)
                index = 0
            }
        }
        work.removeAll()
        deriveState()
    }

    /// Starts the instance: enters the main list.
    mutating func start() {
        // The start input stays in the history (update_sequence's default input, SYNC.md §2.7);
        // telemetry never sends it.
        log(.instanceStarted, [
            "sequence_name": .string(record.sequence.name), "sequence_version": .integer(Int64(record.sequence.version)),
            "input": .object(record.data),
        ])
        var root = runtime.root
        root.state = .running
        root.phase = .active
        root.startedAt = now
        runtime[NodeID.root] = root
        startList(parent: .root, list: SequenceProgram.mainList, iteration: 0)
        drain()
    }

    // MARK: Lists

    func listBlocks(parent: NodeID, list: Int) -> [Int] {
        runtime.program.list(list, of: runtime[parent].blockIndex)
    }

    /// Starts list `list` of `parent` for `iteration`.
    mutating func startList(parent: NodeID, list: Int, iteration: Int) {
        let blocks = listBlocks(parent: parent, list: list)
        guard let first = blocks.first else {
            work.append(.listFinished(parent: parent, list: list, iteration: iteration, outcome: .completed))
            return
        }
        let id = runtime.addNode(parent: parent, blockIndex: first, list: list, position: 0, iteration: iteration)
        work.append(.enter(id))
    }

    /// A node reached a terminal state: advance its list.
    mutating func childFinished(_ id: NodeID) {
        let node = runtime[id]
        guard let parent = node.parent else { return }
        guard !runtime[parent].state.isTerminal || parent == .root else { return }
        switch node.state {
        case .completed, .skipped:
            let blocks = listBlocks(parent: parent, list: node.list)
            if record.cancelRequested && !isProtected(listOf: parent, list: node.list) {
                // Nothing new starts. A race branch that ran to its end still wins: its losers
                // are cancelled structurally, which protection does not stop (§2.8).
                var isRace = false
                if case .race? = runtime.block(of: parent)?.kind { isRace = true }
                let outcome: ListOutcome = isRace && node.position + 1 == blocks.count ? .completed : .cancelled
                work.append(.listFinished(parent: parent, list: node.list, iteration: node.iteration, outcome: outcome))
            } else if node.position + 1 < blocks.count {
                let next = runtime.addNode(
                    parent: parent, blockIndex: blocks[node.position + 1], list: node.list, position: node.position + 1,
                    iteration: node.iteration)
                work.append(.enter(next))
            } else {
                work.append(.listFinished(parent: parent, list: node.list, iteration: node.iteration, outcome: .completed))
            }
        case .failed:
            let error = node.error ?? NodeError(message: "failed")
            work.append(.listFinished(parent: parent, list: node.list, iteration: node.iteration, outcome: .failed(error)))
        case .cancelled:
            work.append(.listFinished(parent: parent, list: node.list, iteration: node.iteration, outcome: .cancelled))
        case .pending, .running, .waiting:
            break
        }
    }

    /// Dispatches a list outcome to the parent's block logic.
    mutating func listFinished(parent: NodeID, list: Int, iteration: Int, outcome: ListOutcome) {
        if parent == .root {
            rootListFinished(list: list, outcome: outcome)
            return
        }
        guard !runtime[parent].state.isTerminal, let block = runtime.block(of: parent) else { return }
        switch block.kind {
        case .step, .subSequence:
            break
        case .router, .abSplit, .cancellationScope:
            finishWithList(parent, outcome)
        case .parallel(let p):
            parallelBranchFinished(parent, branch: list, outcome: outcome, failFast: p.failFast)
        case .race(let r):
            raceBranchFinished(parent, branch: list, outcome: outcome, semantics: r.semantics)
        case .loop(let l):
            loopPassFinished(parent, loop: l, outcome: outcome)
        case .forEach(let f):
            forEachIterationFinished(parent, forEach: f, iteration: iteration, outcome: outcome)
        case .tryCatch(let t):
            tryCatchPhaseFinished(parent, block: block, tryCatch: t, phase: list, outcome: outcome)
        }
    }

    /// A composite whose outcome is its single list's outcome.
    mutating func finishWithList(_ id: NodeID, _ outcome: ListOutcome) {
        switch outcome {
        case .completed: finish(id, .completed)
        case .failed(let e): finish(id, .failed, error: e)
        case .cancelled: finish(id, .cancelled)
        }
    }

    // MARK: Node lifecycle

    /// Marks a node terminal and notifies its parent.
    mutating func finish(_ id: NodeID, _ state: NodeState, error: NodeError? = nil) {
        var node = runtime[id]
        guard !node.state.isTerminal else { return }
        node.state = state
        node.phase = .idle
        node.dueAt = nil
        node.finishedAt = now
        node.error = state == .failed ? error : nil
        if node.startedAt == nil { node.startedAt = now }
        runtime[id] = node
        work.append(.finished(id))
    }

    /// A failure originating at `id`'s block.
    func error(at id: NodeID, _ message: String, code: String? = nil) -> NodeError {
        let block = runtime.block(of: id)
        return NodeError(message: message, code: code, originBlock: block?.id, originType: block?.type)
    }

    /// Enters a freshly created node.
    mutating func enter(_ id: NodeID) {
        guard let block = runtime.block(of: id) else { return }
        var node = runtime[id]
        guard node.state == .pending else { return }
        node.state = .running
        node.phase = .active
        node.startedAt = now
        runtime[id] = node
        switch block.kind {
        case .step(let s):
            continueAttempts(of: id)
            enterStep(id, block: block, step: s)
        case .router(let r): enterRouter(id, router: r)
        case .parallel(let p): enterBranches(id, count: p.branches.count)
        case .race(let r): enterBranches(id, count: r.branches.count)
        case .loop(let l): enterLoop(id, block: block, loop: l)
        case .forEach(let f): enterForEach(id, block: block, forEach: f)
        case .tryCatch: startList(parent: id, list: 0, iteration: 0)
        case .subSequence(let s): enterSubSequence(id, block: block, sub: s)
        case .abSplit(let a): enterSplit(id, block: block, split: a)
        case .cancellationScope: startList(parent: id, list: 0, iteration: 0)
        }
    }

    /// A step node made again where an earlier node of the same block ran at the same
    /// iteration path (a finally or a hook that runs again after a redrive) continues that
    /// node's attempt numbers, with a fresh retry budget: its idempotency keys are new, as §2.4
    /// keeps a key only for the same attempt re-run after a crash.
    mutating func continueAttempts(of id: NodeID) {
        var node = runtime[id]
        guard node.attempt == 0, let parent = node.parent else { return }
        switch runtime.block(of: parent)?.kind {
        case .loop?, .forEach?: return
        default: break
        }
        let parentNode = runtime[parent]
        let siblings = runtime.childNodes(of: parent)
        // Loop and for_each iterations have paths of their own. Elsewhere each block of the
        // parent's lists gets one node unless a list ran again: only then can an earlier node
        // of this block exist.
        let lists = runtime.program.lists(of: parentNode.blockIndex)
        guard siblings.count > lists.reduce(0, { $0 + $1.count }) else { return }
        var previous = 0
        for sibling in siblings where sibling != id {
            let other = runtime[sibling]
            if other.blockIndex == node.blockIndex && other.list == node.list && other.iteration == node.iteration {
                previous = max(previous, other.attempt)
            }
        }
        guard previous > 0 else { return }
        node.attempt = previous
        node.progress.budgetStart = previous
        runtime[id] = node
    }

    // MARK: Root

    mutating func rootListFinished(list: Int, outcome: ListOutcome) {
        if list == SequenceProgram.mainList {
            guard !record.state.isTerminal else { return }
            if record.cancelRequested {
                terminate(.cancelled, error: nil)
                return
            }
            var isCancelled = false
            if case .cancelled = outcome { isCancelled = true }
            if record.isPaused && !isCancelled {
                // Held until `resume`: the root keeps the outcome (its error when failed).
                var root = runtime.root
                root.phase = .finishedWhilePaused
                if case .failed(let e) = outcome { root.error = e }
                runtime[NodeID.root] = root
                return
            }
            switch outcome {
            case .completed: terminate(.completed, error: nil)
            case .failed(let e): terminate(.failed, error: e)
            case .cancelled: terminate(.cancelled, error: nil)
            }
        } else {
            if case .failed(let e) = outcome {
                log(.hookFailed, ["error": .string(e.prefixedMessage), "hook": .string(list == SequenceProgram.onFailureList ? "on_failure" : "on_cancel")])
            }
            record.hooks = .finished
            var root = runtime.root
            root.phase = .idle
            runtime[NodeID.root] = root
        }
    }

    /// Ends the instance: state, error, hooks, journal, effects.
    mutating func terminate(_ state: InstanceState, error: NodeError?) {
        guard !record.state.isTerminal else { return }
        // Whatever is still active is cancelled outright (uncatchable failures, settled cancellation).
        for node in runtime.activeNodes where node.id != .root {
            hardCancel(node.id)
        }
        var r = record
        r.state = state
        r.isPaused = false
        r.finishedAt = now
        r.updatedAt = now
        if let error {
            r.error = InstanceError(message: error.prefixedMessage, blockID: error.originBlock?.rawValue, code: error.code)
        }
        record = r
        var root = runtime.root
        root.state = state == .completed ? .completed : (state == .failed ? .failed : .cancelled)
        root.finishedAt = now
        root.error = error
        runtime[NodeID.root] = root
        switch state {
        case .completed: log(.instanceCompleted, ["data": .object(record.data)])
        case .failed: log(.instanceFailed, ["error": .string(record.error?.message ?? "failed")])
        default: log(.instanceCancelled)
        }
        effect(.terminated(state))
        let hookList = state == .failed ? SequenceProgram.onFailureList : (state == .cancelled ? SequenceProgram.onCancelList : nil)
        if let hookList, !runtime.program.list(hookList, of: SequenceProgram.rootIndex).isEmpty {
            record.hooks = .running
            var root = runtime.root
            root.phase = .active
            runtime[NodeID.root] = root
            startList(parent: .root, list: hookList, iteration: 0)
        } else {
            record.hooks = .finished
        }
    }

    /// Fails the instance directly and uncatchably (lifetime, step budget).
    mutating func failInstance(_ message: String) {
        guard !record.state.isTerminal else { return }
        terminate(.failed, error: NodeError(message: message))
        drain()
    }

    // MARK: State derivation (SEMANTICS §2.1)

    mutating func deriveState() {
        guard !record.state.isTerminal else {
            if runtime.isDirty {
                let now = now
                runtime.updateRecord { $0.updatedAt = now }
            }
            return
        }
        var derived = InstanceState.waiting
        var runnable = false
        var inFlight = false
        for node in runtime.activeNodes {
            switch node.phase {
            case .inFlight: inFlight = true
            case .escalating:
                if node.progress.idempotencyKey != nil { inFlight = true } else if !node.isAwaitingEscalationHandler { runnable = true }
            case .queued, .delaying, .backoff, .polling, .sleeping: runnable = true
            default: break
            }
        }
        if inFlight { derived = .running } else if runnable { derived = .scheduled }
        let target: InstanceState = record.isPaused ? .paused : derived
        if record.state != target || runtime.isDirty {
            let now = now
            runtime.updateRecord {
                $0.state = target
                $0.updatedAt = now
            }
        }
    }

    // MARK: Evaluation scope

    /// The expression scope of a node: shared data with concurrent for_each overlays.
    func scope(for id: NodeID, dataOverride: JSONObject? = nil, attempt: Int? = nil) -> EvaluationScope {
        let data = scopeData(for: id, dataOverride: dataOverride)
        let node = runtime[id]
        let block = runtime.block(of: id)
        let runtimeInfo = RuntimeInfo(
            attempt: max(0, (attempt ?? node.attempt) - 1), instanceId: runtime.id.rawValue, sequenceName: record.sequence.name,
            sequenceVersion: record.sequence.version, currentStep: block?.id.rawValue,
            startedAt: Timestamp.rfc3339(record.createdAt),
            currentStepStartedAt: node.startedAt.map(Timestamp.rfc3339),
            totalStepsExecuted: record.stepsExecuted)
        let seed = record.randomSeed ^ (UInt64(truncatingIfNeeded: id.rawValue) &* 0x9E37_79B9_7F4A_7C15)
            ^ UInt64(truncatingIfNeeded: node.attempt)
        return EvaluationScope(
            data: .object(data), config: .object(record.config), outputs: record.outputs, runtime: runtimeInfo,
            nowMilliseconds: now, random: RandomSource(seed: seed))
    }

    /// The data a node sees: the instance's, with the item and index of every enclosing
    /// concurrent for_each iteration laid over it, and of every for_each nested inside one
    /// (which binds there rather than in the data the other iterations share).
    func scopeData(for id: NodeID, dataOverride: JSONObject? = nil) -> JSONObject {
        var data = dataOverride ?? record.data
        var current = runtime[id]
        // Innermost first; each with whether it runs its iterations concurrently.
        var bindings: [(concurrent: Bool, members: [(String, JSONValue)])] = []
        while let parentID = current.parent {
            let parent = runtime[parentID]
            if let block = runtime.block(of: parentID), case .forEach(let f) = block.kind,
                let items = parent.progress.items, current.iteration < items.count
            {
                var members = [(f.itemVariable, items[current.iteration])]
                if let indexVar = f.indexVariable { members.append((indexVar, .integer(Int64(current.iteration)))) }
                bindings.append((f.maxConcurrency > 1, members))
            }
            current = parent
        }
        guard let outermostConcurrent = bindings.lastIndex(where: \.concurrent) else { return data }
        // Inner bindings win: apply the outermost first.
        for binding in bindings[...outermostConcurrent].reversed() {
            for (key, value) in binding.members { data[key] = value }
        }
        return data
    }

    // MARK: Protection (SEMANTICS §2.10)

    /// Whether list `list` of `parent` lies in protected work: inside a started cancellation
    /// scope or a try_catch's finally phase (at any depth).
    func isProtected(listOf parent: NodeID, list: Int) -> Bool {
        var nodeID: NodeID? = parent
        var viaList = list
        while let id = nodeID {
            let node = runtime[id]
            if let block = runtime.block(of: id) {
                switch block.kind {
                case .cancellationScope: return true
                case .tryCatch: if viaList == 2 { return true }
                default: break
                }
            } else if id == .root {
                // Hook lists run after the terminal state; nothing cancels them.
                return viaList != SequenceProgram.mainList
            }
            viaList = node.list
            nodeID = node.parent
        }
        return false
    }

    /// Whether the node itself is protected work.
    func isProtectedNode(_ id: NodeID) -> Bool {
        let node = runtime[id]
        guard let parent = node.parent else { return false }
        if isProtected(listOf: parent, list: node.list) { return true }
        guard let block = runtime.block(of: id) else { return false }
        switch block.kind {
        case .step(let s): return !s.isCancellable && node.state != .pending
        case .cancellationScope: return node.state != .pending
        default: return false
        }
    }
}
