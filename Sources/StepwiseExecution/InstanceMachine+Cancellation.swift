import StepwiseJSON
import StepwiseSequences

extension InstanceMachine {
    /// Cancels one node outright: timers dropped, waits closed, in-flight calls told to cancel,
    /// child instances cancelled. The parent is not notified (the caller decides).
    mutating func hardCancel(_ id: NodeID) {
        var node = runtime[id]
        guard !node.state.isTerminal else { return }
        switch node.phase {
        case .inFlight:
            effect(.cancelHandler(id))
        case .escalating where node.progress.idempotencyKey != nil:
            effect(.cancelHandler(id))
        case .awaitingChild:
            if let child = node.progress.childInstance, let childID = InstanceID(rawValue: child) {
                effect(.cancelChild(childID))
            }
        default:
            break
        }
        if let block = runtime.block(of: id), case .forEach(let f) = block.kind {
            removeForEachBindings(id, forEach: f)
        }
        node.state = .cancelled
        node.phase = .idle
        node.dueAt = nil
        node.finishedAt = now
        node.progress.waitID = nil
        node.progress.idempotencyKey = nil
        node.progress.delegationRequestID = nil
        runtime[id] = node
    }

    /// Structural cancellation (race losers, fail-fast siblings, failed for_each iterations):
    /// the node and every unfinished descendant, with no protection.
    mutating func cancelSubtree(_ id: NodeID) {
        var stack = [id]
        while let current = stack.popLast() {
            guard !runtime[current].state.isTerminal else { continue }
            stack.append(contentsOf: runtime.childNodes(of: current))
            hardCancel(current)
        }
    }

    /// Instance cancellation (SEMANTICS §2.10): cancels every active node except protected
    /// started work, whose ancestors settle when it finishes.
    mutating func requestCancellation() {
        guard !record.state.isTerminal else { return }
        var r = record
        r.cancelRequested = true
        record = r
        if runtime.root.phase == .finishedWhilePaused {
            // Nothing is left to cancel: the held outcome gives way to the cancellation.
            terminate(.cancelled, error: nil)
            drain()
            return
        }
        sweep(.root)
        drain()
    }

    private mutating func sweep(_ parent: NodeID) {
        for child in runtime.childNodes(of: parent) {
            let node = runtime[child]
            guard !node.state.isTerminal else { continue }
            if parent == .root && node.list != SequenceProgram.mainList { continue }
            guard let block = runtime.block(of: child) else { continue }
            switch block.kind {
            case .cancellationScope:
                continue
            case .step(let s):
                if !s.isCancellable { continue }
                hardCancel(child)
                workFinished(child)
            case .tryCatch:
                if node.progress.tryPhase == 2 { continue }
                sweepOrCancel(child)
            case .subSequence:
                hardCancel(child)
                workFinished(child)
            default:
                sweepOrCancel(child)
            }
        }
    }

    private mutating func sweepOrCancel(_ id: NodeID) {
        if runtime.childNodes(of: id).contains(where: { !runtime[$0].state.isTerminal }) {
            sweep(id)
        } else {
            hardCancel(id)
            workFinished(id)
        }
    }

    /// Updates `context.data` from an `update_context` signal.
    mutating func mergeIntoData(_ values: JSONObject) throws(StepwiseError) {
        var data = record.data
        for (k, v) in values { data[k] = v }
        if let problem = dataSizeProblem(data) { throw StepwiseError(.invalidInput, problem) }
        var r = record
        r.data = data
        record = r
        deriveState()
    }

    /// Sets or clears the paused flag; clearing it applies an outcome held while paused.
    mutating func setPaused(_ paused: Bool) {
        var r = record
        r.isPaused = paused
        record = r
        let root = runtime.root
        if !paused && root.phase == .finishedWhilePaused {
            var released = root
            released.phase = .active
            runtime[NodeID.root] = released
            terminate(root.error == nil ? .completed : .failed, error: root.error)
            drain()
            return
        }
        deriveState()
    }
}
