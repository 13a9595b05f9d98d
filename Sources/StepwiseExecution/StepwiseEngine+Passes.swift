import StepwiseJSON
import StepwiseSequences

extension StepwiseEngine {
    // MARK: Transitions

    func makeContext() -> TransitionContext {
        let registered = registeredHandlerNames
        let known = sequences
        var context = TransitionContext(
            now: clock.now(), configuration: configuration, conditions: conditions,
            isHandlerRegistered: { registered.contains($0) },
            engineHandledBuiltins: engineHandledBuiltins,
            findSequence: { name, version in
                if let version {
                    let key = SequenceKey(name: name, version: version)
                    return known[key].map { $0.isRetired ? nil : key } ?? nil
                }
                return known.values.filter { $0.key.hasName(name) && !$0.isDeprecated && !$0.isRetired }.map(\.key).max()
            },
            makeInstanceID: { [self] in
                // Instance ids come from the engine's seeded generator.
                self.assumeIsolated { engine in engine.freshInstanceID() }
            })
        context.isChannelConfigured = isChannelConfigured
        return context
    }

    /// Runs `body` on the instance's machine and absorbs its journal and effects into the pass.
    func transition(
        _ id: InstanceID, _ body: (inout InstanceMachine) throws(StepwiseError) -> Void
    ) throws(StepwiseError) {
        guard let runtime = live[id] else {
            throw StepwiseError(.notFound, "instance \(id) not found", context: ["instance_id": .string(id.rawValue)])
        }
        var machine = InstanceMachine(runtime: runtime, context: makeContext())
        let before = runtime.record.state
        try body(&machine)
        touched.insert(id)
        if runtime.record.state != before || runtime.isDirty { advancedInPass.insert(id) }
        pendingJournal.append(contentsOf: machine.journal)
        for effect in machine.effects { apply(effect, of: runtime) }
    }

    func transitionIgnoringErrors(_ id: InstanceID, _ body: (inout InstanceMachine) -> Void) {
        try? transition(id) { (machine: inout InstanceMachine) throws(StepwiseError) in body(&machine) }
    }

    private func apply(_ effect: MachineEffect, of runtime: InstanceRuntime) {
        switch effect {
        case .enqueue(let node):
            queue.append(.begin(runtime.id, node))
        case .cancelHandler(let node):
            inFlight.removeValue(forKey: InFlightKey(instance: runtime.id, node: node))?.task.cancel()
        case .startChild(let node, let child, let key, let input):
            startChild(parent: runtime, node: node, child: child, sequence: key, input: input)
        case .cancelChild(let child):
            if let childRuntime = live[child], !childRuntime.record.state.isTerminal {
                transitionIgnoringErrors(child) { $0.requestCancellation() }
            }
        case .terminated(let state):
            let record = runtime.record
            if state == .failed && record.parentInstance == nil { recordDeadLetter(for: runtime) }
            // With or without a channel: the instance may end under `run` or `resume`, long
            // after the sync that accepted the `graceful` update (a point lookup when none is owed).
            if record.parentInstance == nil { startFollowUpIfAny(of: record.id) }
            if let parent = record.parentInstance, let parentNode = record.parentNode, live[parent] != nil {
                transitionIgnoringErrors(parent) {
                    $0.childInstanceFinished(parentNode, state: state, data: record.data, error: record.error)
                }
            }
        }
    }

    private func recordDeadLetter(for runtime: InstanceRuntime) {
        let record = runtime.record
        let error = record.error ?? InstanceError(message: "failed")
        var handler: String?
        var attempts = 0
        if let blockID = error.blockID,
            let node = runtime.allNodes.last(where: { runtime.block(of: $0.id)?.id.rawValue == blockID })
        {
            if case .step(let step)? = runtime.block(of: node.id)?.kind { handler = step.handler }
            attempts = node.attempt
        }
        queueDeadLetter(for: record, error: error, handler: handler, attempts: attempts)
    }

    /// Adds the dead letter of a failed root instance to the pass being built.
    func queueDeadLetter(for record: InstanceRecord, error: InstanceError, handler: String?, attempts: Int) {
        pendingBatch.deadLetters.append(
            DeadLetter(
                id: freshDeadLetterID(), instanceId: record.id, sequenceName: record.sequence.name,
                sequenceVersion: record.sequence.version, blockId: error.blockID, handler: handler, error: error,
                attempts: attempts, failedAt: record.finishedAt ?? clock.now()))
    }

    private func startChild(
        parent: InstanceRuntime, node: NodeID, child: InstanceID, sequence: SequenceKey, input: JSONObject
    ) {
        let now = clock.now()
        guard let program = try? program(for: sequence) else {
            transitionIgnoringErrors(parent.id) {
                $0.childInstanceFinished(
                    node, state: .failed, data: JSONObject(),
                    error: InstanceError(message: "sub-sequence '\(sequence.name)' not found"))
            }
            return
        }
        let record = InstanceRecord(
            id: child, sequence: sequence, state: .scheduled, data: input, config: parent.record.config,
            // A child started while its parent is paused starts paused: pause covers the subtree.
            isPaused: parent.record.isPaused, parentInstance: parent.id, parentNode: node, createdAt: now, updatedAt: now,
            lifetimeStartedAt: now, depth: parent.record.depth + 1, randomSeed: random.next())
        live[child] = InstanceRuntime(record: record, program: program)
        transitionIgnoringErrors(child) { $0.start() }
    }

    // MARK: Commit

    /// Writes everything the pass changed in one transaction, then launches its handler calls.
    ///
    /// On a storage failure the touched instances are reloaded from the store (the in-memory
    /// state never runs ahead of what is durable) and nothing is launched.
    func commitPass() throws(StepwiseError) {
        var batch = pendingBatch
        pendingBatch = StoreBatch()
        let ids = touched
        touched = []
        touchedLastPass = ids
        for id in ids.sorted() {
            guard let runtime = live[id] else { continue }
            if runtime.recordDirty {
                batch.instances.append(runtime.record)
                batch.objectChanges[id] = runtime.takeObjectChanges()
                runtime.recordDirty = false
            }
            let nodes = runtime.takeDirtyNodes()
            if !nodes.isEmpty { batch.nodes.append((id, nodes)) }
            for node in nodes where !node.state.isTerminal {
                if let due = node.dueAt {
                    timers.push(.init(due: due, instance: id, node: node.id))
                }
            }
        }
        batch.journal = pendingJournal
        pendingJournal = []
        batch.now = clock.now()
        batch.outbox += commandWrites
        commandWrites = []
        batch.outbox += outboxWrites(
            instances: Set(batch.instances.map(\.id)).union(batch.nodes.map(\.0)), journal: batch.journal, now: batch.now)
        let calls = launches
        launches = []
        if !batch.isEmpty {
            let telemetry = cuttingTelemetry(in: &batch)
            do {
                try store.commit(batch)
            } catch {
                rollBack(ids)
                throw error
            }
            telemetryBuffer = telemetry
            commitObserver?(batch)
            if listener != nil && !batch.journal.isEmpty { wakeDelivery() }
        }
        for id in ids {
            if let runtime = live[id], runtime.record.state.isTerminal, runtime.record.hooks != .running,
                !inFlight.keys.contains(where: { $0.instance == id })
            {
                live[id] = nil
                heldTimers[id] = nil
                releaseRetiredVersion(runtime.record.sequence)
            }
        }
        for call in calls { launch(call) }
    }

    /// Drops every change not committed yet (a server command that failed part-way): touched
    /// instances go back to their stored state and the pending journal, batch and command rows
    /// are discarded, so a `retry` outcome leaves nothing behind (SYNC.md §2.6).
    func discardUncommittedChanges() {
        let ids = touched
        touched = []
        pendingJournal = []
        pendingBatch = StoreBatch()
        commandWrites = []
        rollBack(ids)
    }

    private func rollBack(_ ids: Set<InstanceID>) {
        for id in ids {
            live[id] = nil
            // The reload re-arms every persisted deadline, held ones included.
            heldTimers[id] = nil
            reloadInstance(id)
        }
        queue.removeAll { entry in
            switch entry {
            case .begin(let i, _), .resume(let i, _): ids.contains(i)
            }
        }
        // Reloaded attempts that held secrets are delegated again through their `.resume` entry.
        resolvedCalls.removeAll { ids.contains($0.instance) }
        for id in ids {
            if let runtime = live[id] { requeueAfterReload(runtime) }
        }
    }

    /// Puts an instance's committed state back in `live`. When the store cannot be read either
    /// (the fault that failed the commit may fail reads too), the id is kept in
    /// `instancesToReload` and retried before the next pass and API call: dropping it would
    /// make a live instance look finished (`invalidState`) until the engine is reopened.
    private func reloadInstance(_ id: InstanceID) {
        let loaded: (InstanceRecord, [Node])?
        do {
            loaded = try store.loadInstance(id)
        } catch {
            instancesToReload.insert(id)
            return
        }
        instancesToReload.remove(id)
        // Not stored (a start whose commit failed) or finished: nothing to put back.
        guard let loaded, let program = try? program(for: loaded.0.sequence),
            !(loaded.0.state.isTerminal && loaded.0.hooks != .running)
        else { return }
        do {
            live[id] = try InstanceRuntime(record: loaded.0, program: program, nodes: loaded.1)
        } catch {
            damagedInstances.append((loaded.0, error.message))
        }
    }

    /// Retries the reloads a storage failure left pending (see ``reloadInstance(_:)``).
    func reloadInstancesAfterStorageFailure() {
        guard !instancesToReload.isEmpty else { return }
        for id in instancesToReload.sorted() {
            if live[id] != nil {
                instancesToReload.remove(id)
                continue
            }
            reloadInstance(id)
            if let runtime = live[id] { requeueAfterReload(runtime) }
        }
    }

    /// Queues the runnable nodes of a reloaded instance and re-arms its persisted deadlines: the
    /// failed pass may have popped a due timer, whose firing then existed only in memory.
    private func requeueAfterReload(_ runtime: InstanceRuntime) {
        let id = runtime.id
        for node in runtime.allNodes where !node.state.isTerminal {
            let running = inFlight.keys.contains(InFlightKey(instance: id, node: node.id))
            switch node.phase {
            case .queued: queue.append(.begin(id, node.id))
            case .inFlight where !running: queue.append(.resume(id, node.id))
            case .escalating where !running:
                queue.append(node.progress.idempotencyKey != nil ? .resume(id, node.id) : .begin(id, node.id))
            default: break
            }
            if let due = node.dueAt { timers.push(.init(due: due, instance: id, node: node.id)) }
        }
    }

    // MARK: Handler calls

    private func launch(_ call: HandlerCall) {
        guard let handler = handlers[call.handler] else { return }
        let context = StepContext(
            instanceId: call.instance, stepId: call.stepID, handler: call.handler, params: call.params, data: call.data,
            attempt: call.attempt, idempotencyKey: call.idempotencyKey)
        let key = InFlightKey(instance: call.instance, node: call.node)
        let (instance, node, attempt, isEscalation) = (call.instance, call.node, call.attempt, call.isEscalation)
        lastLaunch += 1
        let launch = lastLaunch
        let preference: (any TaskExecutor)? = configuration.handlerExecution == .engineThread ? executor.task : nil
        let task = Task(executorPreference: preference) { [weak self] in
            let result: Result<JSONValue, AttemptFailure>
            do {
                result = .success(try await handler.execute(context))
            } catch let error as StepError {
                result = .failure(AttemptFailure(message: error.message, code: error.code, isRetryable: error.isRetryable))
            } catch is CancellationError {
                result = .failure(AttemptFailure(message: "cancelled", code: "cancelled", isRetryable: true))
            } catch {
                result = .failure(AttemptFailure(message: "\(error)", code: nil, isRetryable: true))
            }
            await self?.handlerReturned(
                Completion(instance: instance, node: node, attempt: attempt, isEscalation: isEscalation, launch: launch, result: result))
        }
        inFlight[key] = InFlightCall(launch: launch, task: task)
    }

    private func handlerReturned(_ completion: Completion) {
        guard !isCrashed else { return }
        let key = InFlightKey(instance: completion.instance, node: completion.node)
        if inFlight[key]?.launch == completion.launch { inFlight[key] = nil }
        inbox.append(completion)
        if isPausedByHost && !isShutdown {
            // Paused: no loop will take it, so it is recorded now (and survives a kill).
            _ = try? runPass(dispatch: false)
            return
        }
        wake()
    }

    /// Number of handler calls in flight.
    package var inFlightCount: Int { inFlight.count }

    /// ``hasImmediateWork`` and ``inFlightCount`` read together: read apart, a handler result
    /// landing between the two reads looks like neither work nor a call in flight.
    package var workAndCallsInFlight: (hasImmediateWork: Bool, inFlight: Int) { (hasImmediateWork, inFlight.count) }

    /// Whether a pass would do something now.
    package var hasImmediateWork: Bool {
        if !inbox.isEmpty { return true }
        if let due = timers.earliest, due <= clock.now() { return true }
        if !resolvedCalls.isEmpty && inFlight.count < Int(configuration.maxConcurrentSteps) { return true }
        return !queue.isEmpty && inFlight.count < Int(configuration.maxConcurrentSteps) && hasDispatchableEntry()
    }

    private func hasDispatchableEntry() -> Bool {
        queue.contains { entry in
            switch entry {
            case .begin(let i, _), .resume(let i, _): !(live[i]?.record.isPaused ?? true)
            }
        }
    }

    /// The next timer deadline (Unix ms) of any live node; stale heap entries are dropped.
    package func nextDeadline() -> Int64? {
        while let due = timers.earliest {
            guard let entry = timers.popDue(by: due) else { break }
            if let runtime = live[entry.instance], entry.node.rawValue < runtime.allNodes.count,
                runtime[entry.node].dueAt == entry.due, !runtime[entry.node].state.isTerminal
            {
                timers.push(entry)
                return due
            }
        }
        return nil
    }

    // MARK: Passes

    /// One pass: record finished handler calls, fire due timers, dispatch runnable steps up to
    /// the free slots, and commit all of it in one transaction.
    ///
    /// - Throws: ``StepwiseError`` `storage` when the commit fails.
    @discardableResult
    package func runPass(dispatch: Bool = true) throws(StepwiseError) -> Int {
        guard !isCrashed, !isShutdown || !inbox.isEmpty else { return 0 }
        reloadInstancesAfterStorageFailure()
        failDamagedInstances()
        completedInPass = 0
        // Lifetime first: an instance past its lifetime failed at that moment, before any
        // result or timer that came due later (a clock that jumped past both, in tests).
        let now = clock.now()
        if !isShutdown { housekeepingIfDue(now: now) }
        let completions = inbox
        inbox = []
        for completion in completions {
            guard live[completion.instance] != nil else { continue }
            completedInPass += 1
            transitionIgnoringErrors(completion.instance) { machine in
                switch completion.result {
                case .success(let output):
                    machine.handlerSucceeded(
                        completion.node, attempt: completion.attempt, escalation: completion.isEscalation, output: output)
                case .failure(let failure):
                    machine.handlerFailed(
                        completion.node, attempt: completion.attempt, escalation: completion.isEscalation, failure: failure)
                }
            }
        }
        // Timers due together fire in tree order (SEMANTICS §2.8: dispatch order = tree order),
        // whatever order the heap holds them in: two delayed branches get the first and second
        // scripted or queued answers in branch order.
        var due: [TimerHeap.Entry] = []
        while let entry = timers.popDue(by: now) { due.append(entry) }
        if due.count > 1 {
            let keys = due.map { entry in
                live[entry.instance].flatMap { runtime in
                    entry.node.rawValue < runtime.allNodes.count ? runtime.treeOrderKey(of: entry.node) : nil
                } ?? TreeOrderKey(levels: [])
            }
            due = due.indices.sorted { a, b in
                let (x, y) = (due[a], due[b])
                if x.due != y.due { return x.due < y.due }
                if x.instance != y.instance { return x.instance < y.instance }
                return keys[a] < keys[b]
            }.map { due[$0] }
        }
        for entry in due {
            guard let runtime = live[entry.instance], entry.node.rawValue < runtime.allNodes.count,
                runtime[entry.node].dueAt == entry.due
            else { continue }
            // A paused instance's handler time limits still apply (its calls are in flight);
            // its other timers wait for `resume`.
            if runtime.record.isPaused && runtime[entry.node].phase != .inFlight {
                heldTimers[entry.instance, default: []].append(entry)
                continue
            }
            transitionIgnoringErrors(entry.instance) { $0.timerFired(entry.node) }
        }
        let holdForRestart = holdDispatchAfterStep.map { step in
            pendingJournal.contains { $0.kind == .stepSucceeded && $0.stepID == step }
        } ?? false
        if dispatch && !isShutdown && !holdForRestart { dispatchQueued() }
        if !isShutdown { seedOutboxIfNeeded() }
        try commitPass()
        return completedInPass
    }

    /// Turns queued nodes into in-flight calls while slots are free.
    private func dispatchQueued() {
        dispatchResolvedCalls()
        var kept: [QueueEntry] = []
        var index = 0
        while index < queue.count {
            let entry = queue[index]
            index += 1
            guard inFlight.count + launches.count < Int(configuration.maxConcurrentSteps) else {
                kept.append(entry)
                continue
            }
            switch entry {
            case .begin(let id, let node), .resume(let id, let node):
                guard let runtime = live[id] else { continue }
                if runtime.record.isPaused {
                    kept.append(entry)
                    continue
                }
                var call: HandlerCall?
                if case .resume = entry {
                    transitionIgnoringErrors(id) { machine in
                        if machine.delegateAgainIfSecretsWereLost(node) { return }
                        call = machine.resumedCall(node)
                        if let c = call {
                            var n = machine.runtime[node]
                            if let timeout = c.timeoutMs {
                                n.dueAt = machine.now + timeout
                            }
                            n.progress.attemptStartedAt = machine.now
                            machine.runtime[node] = n
                        }
                    }
                } else {
                    transitionIgnoringErrors(id) { call = $0.beginAttempt(node) }
                }
                if let call { launches.append(call) }
            }
        }
        queue = kept
    }

    /// Launches delegated attempts whose secrets arrived, while slots are free; the attempt's
    /// timeout starts now. A call whose attempt is no longer current (cancelled meanwhile) is dropped.
    private func dispatchResolvedCalls() {
        var waiting: [HandlerCall] = []
        for call in resolvedCalls {
            guard let runtime = live[call.instance], !runtime.record.isPaused,
                inFlight.count + launches.count < Int(configuration.maxConcurrentSteps)
            else {
                if live[call.instance] != nil { waiting.append(call) }
                continue
            }
            var current = false
            transitionIgnoringErrors(call.instance) { machine in
                current = machine.isCurrent(call.node, attempt: call.attempt, escalation: false)
                guard current else { return }
                var node = machine.runtime[call.node]
                node.progress.attemptStartedAt = machine.now
                node.dueAt = call.timeoutMs.map { machine.now + $0 }
                machine.runtime[call.node] = node
            }
            if current { launches.append(call) }
        }
        resolvedCalls = waiting
    }

    // MARK: Crash simulation (tests, conformance)

    /// Drops the engine as a kill would: in-flight handler results are ignored and nothing more
    /// is written. The store must not be used again through this engine.
    package func simulateCrash() {
        isCrashed = true
        for call in inFlight.values { call.task.cancel() }
        inFlight = [:]
        loopTask?.cancel()
        timerTask?.cancel()
        channelTask?.cancel()
        wakeContinuation?.resume()
        wakeContinuation = nil
    }
}

extension StepwiseEngine {
    /// Whether any instance is still live (non-terminal, or running its hooks) or any handler
    /// call is in flight.
    package var hasLiveWork: Bool { !live.isEmpty || !inFlight.isEmpty }
}
