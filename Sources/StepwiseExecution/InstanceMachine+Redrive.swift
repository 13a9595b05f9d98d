import StepwiseJSON
import StepwiseSequences

extension InstanceMachine {
    /// Redrive (SEMANTICS §6.8): every failed node, and every node cancelled by that failure,
    /// returns to work; composites keep their progress; steps get a fresh retry budget with
    /// continuing attempt numbers; the error is cleared and the lifetime clock restarts.
    ///
    /// Only the failure that ended the instance counts: a node whose ancestors did not all fail
    /// or get cancelled was dealt with (a failure a `try_catch` caught, a race loser of a race
    /// that completed) and stays as it is. "Cancelled by the failure" means cancelled no earlier
    /// than the first such failure finished.
    /// An uncatchable failure (lifetime exceeded, step budget spent) fails no node but the root
    /// and cancels what was running: those nodes return to work, and the step budget starts
    /// afresh as the lifetime clock does, or the instance would fail again at once.
    mutating func redrive() {
        let failed = runtime.allNodes.filter { $0.state == .failed && $0.id != .root && isOnFailurePath($0.id) }
        guard let failureStart = failed.compactMap(\.finishedAt).min() ?? runtime.root.finishedAt else { return }
        let uncatchable = failed.isEmpty
        var reset = Set(
            runtime.allNodes.filter { node in
                node.id != .root && node.parent != nil && isOnFailurePath(node.id)
                    && (node.state == .failed || (node.state == .cancelled && (node.finishedAt ?? 0) >= failureStart))
            }.map(\.id))
        // A try_catch resumes at the phase whose failure it did not handle; its other phases'
        // nodes stay as they ended (a caught try, a catch that ran), and finally runs again,
        // once, after that phase.
        var restartPhases: [NodeID: Int] = [:]
        for id in reset {
            guard case .tryCatch? = runtime.block(of: id)?.kind else { continue }
            restartPhases[id] = restartPhase(ofFailedTryCatch: id)
        }
        if !restartPhases.isEmpty {
            reset = reset.filter { id in
                var current = runtime[id]
                while let parent = current.parent {
                    if let phase = restartPhases[parent], current.list != phase { return false }
                    current = runtime[parent]
                }
                return true
            }
        }
        var r = record
        r.state = .scheduled
        r.error = nil
        r.finishedAt = nil
        r.lifetimeStartedAt = now
        if uncatchable { r.stepsExecuted = 0 }
        r.hooks = .none
        r.cancelRequested = false
        record = r
        var root = runtime.root
        root.state = .running
        root.phase = .active
        root.error = nil
        root.finishedAt = nil
        runtime[NodeID.root] = root
        log(.instanceRedriven, ["nodes": .array(reset.sorted().map { .integer(Int64($0.rawValue)) })])

        // Reopen composites (keeping progress) top-down; collect the leaves to re-run.
        var reenter: [NodeID] = []
        for id in reset.sorted() {
            var node = runtime[id]
            let hasResetChildren = runtime.childNodes(of: id).contains { reset.contains($0) }
            node.error = nil
            node.finishedAt = nil
            node.dueAt = nil
            if let parent = node.parent { reopenSlot(in: parent, for: node) }
            if let phase = restartPhases[id] {
                node.progress.tryPhase = phase
                node.progress.pendingError = nil
                node.progress.cancelledDuringTry = false
            }
            guard let block = runtime.block(of: id) else { continue }
            switch block.kind {
            case .step:
                node.state = .pending
                node.phase = .idle
                node.progress.budgetStart = node.attempt
                node.progress.idempotencyKey = nil
                node.progress.waitID = nil
                runtime[id] = node
                reenter.append(id)
            case .loop(let loop) where !hasResetChildren:
                node.state = .running
                node.phase = .active
                runtime[id] = node
                loopNextIteration(id, loop: loop)
            default:
                if hasResetChildren {
                    node.state = .running
                    node.phase = .active
                    runtime[id] = node
                } else {
                    // The composite failed on its own (a condition, a collection, a child
                    // instance): enter it again.
                    node.state = .pending
                    node.phase = .idle
                    runtime[id] = node
                    reenter.append(id)
                }
            }
        }
        for id in reenter { workEnter(id) }
        drain()
    }

    /// The phase (0 try, 1 catch, 2 finally) a failed try_catch resumes at: the earliest
    /// whose failure it did not handle. A try failure a catch took was handled; a failure that
    /// was pending while finally ran was not, whatever finally did.
    func restartPhase(ofFailedTryCatch id: NodeID) -> Int {
        let node = runtime[id]
        let children = runtime.childNodes(of: id).map { runtime[$0] }
        let catchRan = children.contains { $0.list == 1 }
        switch node.progress.tryPhase {
        case 0: return 0
        case 1: return 1
        default:
            // Finally ran: with a failure pending from the try (no catch) or the catch, that
            // phase runs again; otherwise finally itself failed.
            guard node.progress.pendingError != nil else { return 2 }
            return catchRan ? 1 : 0
        }
    }

    /// Whether a node lies in the main list (not a hook list) under ancestors that all failed
    /// or were cancelled: the path the instance's failure took.
    func isOnFailurePath(_ id: NodeID) -> Bool {
        guard isInMainTree(id) else { return false }
        var current = runtime[id]
        while let parent = current.parent, parent != .root {
            current = runtime[parent]
            guard current.state == .failed || current.state == .cancelled else { return false }
        }
        return true
    }

    /// Whether a node lies in the main list (not a hook list).
    func isInMainTree(_ id: NodeID) -> Bool {
        var current = runtime[id]
        while let parent = current.parent {
            if parent == .root { return current.list == SequenceProgram.mainList }
            current = runtime[parent]
        }
        return false
    }

    /// Makes the parent composite wait for `child`'s list again.
    mutating func reopenSlot(in parent: NodeID, for child: Node) {
        guard let block = runtime.block(of: parent) else { return }
        var node = runtime[parent]
        switch block.kind {
        case .parallel, .race:
            if child.list < node.progress.branchOutcomes.count { node.progress.branchOutcomes[child.list] = nil }
        case .forEach(let f):
            if !node.progress.activeIterations.contains(child.iteration) {
                node.progress.activeIterations.append(child.iteration)
                if bindsInSharedData(parent, forEach: f), let items = node.progress.items, child.iteration < items.count {
                    _ = runtime.setDataMember(f.itemVariable, to: items[child.iteration])
                    if let indexVar = f.indexVariable { _ = runtime.setDataMember(indexVar, to: .integer(Int64(child.iteration))) }
                }
            }
        case .tryCatch:
            node.progress.pendingError = nil
        default:
            break
        }
        runtime[parent] = node
    }
}
