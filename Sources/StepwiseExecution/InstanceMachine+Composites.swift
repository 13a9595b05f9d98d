import StepwiseCrypto
import StepwiseExpressions
import StepwiseJSON
import StepwiseSequences

extension InstanceMachine {
    // MARK: router

    mutating func enterRouter(_ id: NodeID, router: RouterBlock) {
        let scope = scope(for: id)
        var chosen: Int?
        for (i, route) in router.routes.enumerated() {
            switch route.condition.evaluate(scope) {
            case .error(let message):
                finish(id, .failed, error: error(at: id, message))
                return
            case .value(let v):
                if v.isTruthy {
                    chosen = i
                }
            }
            if chosen != nil { break }
        }
        if chosen == nil, router.defaultBlocks != nil { chosen = router.routes.count }
        var node = runtime[id]
        node.progress.chosenList = chosen
        runtime[id] = node
        guard let chosen else {
            finish(id, .completed)
            return
        }
        startList(parent: id, list: chosen, iteration: 0)
    }

    // MARK: parallel and race

    mutating func enterBranches(_ id: NodeID, count: Int) {
        var node = runtime[id]
        node.progress.branchOutcomes = Array(repeating: nil, count: count)
        runtime[id] = node
        for branch in 0..<count { startList(parent: id, list: branch, iteration: 0) }
    }

    mutating func recordBranch(_ id: NodeID, branch: Int, outcome: ListOutcome) -> [BranchOutcome?] {
        var node = runtime[id]
        let wasEmpty = listBlocks(parent: id, list: branch).isEmpty
        let result: BranchOutcome
        switch outcome {
        case .completed: result = BranchOutcome(state: .completed, at: now, wasEmpty: wasEmpty)
        case .failed(let e): result = BranchOutcome(state: .failed, error: e, at: now)
        case .cancelled: result = BranchOutcome(state: .cancelled, at: now)
        }
        if branch < node.progress.branchOutcomes.count { node.progress.branchOutcomes[branch] = result }
        runtime[id] = node
        return node.progress.branchOutcomes
    }

    /// Structurally cancels every unfinished branch of `id` except `keep`.
    mutating func cancelOtherBranches(_ id: NodeID, except keep: Int?) {
        var node = runtime[id]
        for (branch, outcome) in node.progress.branchOutcomes.enumerated() where outcome == nil && branch != keep {
            node.progress.branchOutcomes[branch] = BranchOutcome(state: .cancelled, at: now)
        }
        runtime[id] = node
        for child in runtime.childNodes(of: id) where runtime[child].list != keep {
            cancelSubtree(child)
        }
    }

    /// The earliest failure by completion time, ties in branch order.
    func earliestFailure(_ outcomes: [BranchOutcome?]) -> NodeError? {
        var best: (Int64, Int, NodeError)?
        for (i, o) in outcomes.enumerated() {
            guard let o, o.state == .failed, let e = o.error else { continue }
            if best == nil || o.at < best!.0 || (o.at == best!.0 && i < best!.1) { best = (o.at, i, e) }
        }
        return best?.2
    }

    mutating func parallelBranchFinished(_ id: NodeID, branch: Int, outcome: ListOutcome, failFast: Bool) {
        var outcomes = recordBranch(id, branch: branch, outcome: outcome)
        if failFast, case .failed(let e) = outcome {
            // Structural cancellation: no scope, finally or `cancellable: false` protects the
            // siblings (§2.8). A parallel that is itself being cancelled settles below.
            cancelOtherBranches(id, except: branch)
            if !isBeingCancelled(id) {
                finish(id, .failed, error: e)
                return
            }
            outcomes = runtime[id].progress.branchOutcomes
        }
        guard outcomes.allSatisfy({ $0 != nil }) else { return }
        if let failure = earliestFailure(outcomes) {
            finish(id, .failed, error: failure)
        } else if outcomes.contains(where: { $0?.state == .cancelled }) {
            finish(id, .cancelled)
        } else {
            finish(id, .completed)
        }
    }

    mutating func raceBranchFinished(
        _ id: NodeID, branch: Int, outcome: ListOutcome, semantics: RaceBlock.Semantics
    ) {
        var outcomes = recordBranch(id, branch: branch, outcome: outcome)
        // The race is decided even while the instance is cancelled: losers are cancelled
        // structurally, which protection does not stop (§2.8). A race inside protected work
        // then ends as decided; one that is itself being cancelled settles below (cancelled).
        var decided: (NodeState, NodeError?)?
        switch outcome {
        case .completed where !(outcomes[branch]?.wasEmpty ?? false): decided = (.completed, nil)
        case .failed(let e) where semantics == .firstToResolve: decided = (.failed, e)
        default: break
        }
        if let decided {
            cancelOtherBranches(id, except: branch)
            if !isBeingCancelled(id) {
                finish(id, decided.0, error: decided.1)
                return
            }
            outcomes = runtime[id].progress.branchOutcomes
        }
        guard outcomes.allSatisfy({ $0 != nil }) else { return }
        if outcomes.contains(where: { $0?.state == .cancelled }) {
            finish(id, .cancelled)
            return
        }
        // Every branch ended without a winner: all empty → complete; else the last failure
        // (of failures at the same moment, the last in tree order, as parallel breaks ties).
        let failures = outcomes.compactMap { $0 }.filter { $0.state == .failed }
        let latest = failures.map(\.at).max()
        if let last = failures.last(where: { $0.at == latest }), let e = last.error {
            finish(id, .failed, error: e)
        } else {
            finish(id, .completed)
        }
    }

    /// Whether the instance's cancellation applies to `id`: requested, and `id` is not inside
    /// protected work (it only waits for protected descendants to settle).
    func isBeingCancelled(_ id: NodeID) -> Bool {
        record.cancelRequested && !isProtectedNode(id)
    }

    // MARK: loop

    mutating func setLoopMarker(_ id: NodeID, iterations: Int) {
        guard let block = runtime.block(of: id) else { return }
        var r = record
        r.outputs[block.id.rawValue] = ["_iterations": .integer(Int64(iterations))]
        record = r
    }

    mutating func enterLoop(_ id: NodeID, block: Block, loop: LoopBlock) {
        setLoopMarker(id, iterations: 0)
        loopNextIteration(id, loop: loop)
    }

    /// Checks the cap and the condition, then runs the next pass.
    mutating func loopNextIteration(_ id: NodeID, loop: LoopBlock) {
        let node = runtime[id]
        if record.cancelRequested && !isProtectedNode(id) {
            finish(id, .cancelled)
            return
        }
        if node.progress.iterations >= loop.maxIterations {
            finish(id, .completed)
            return
        }
        switch loop.condition.evaluate(scope(for: id)) {
        case .error(let message):
            finish(id, .failed, error: error(at: id, message))
        case .value(let v):
            if v.isTruthy {
                startList(parent: id, list: 0, iteration: node.progress.iterations)
            } else {
                finish(id, .completed)
            }
        }
    }

    mutating func loopPassFinished(_ id: NodeID, loop: LoopBlock, outcome: ListOutcome) {
        var node = runtime[id]
        switch outcome {
        case .cancelled:
            finish(id, .cancelled)
            return
        case .failed(let e):
            guard loop.continueOnError else {
                finish(id, .failed, error: e)
                return
            }
            node.progress.iterations += 1
            runtime[id] = node
            setLoopMarker(id, iterations: node.progress.iterations)
        case .completed:
            node.progress.iterations += 1
            runtime[id] = node
            setLoopMarker(id, iterations: node.progress.iterations)
            if let breakOn = loop.breakOn {
                switch breakOn.evaluate(scope(for: id)) {
                case .error(let message):
                    finish(id, .failed, error: error(at: id, message))
                    return
                case .value(let v):
                    if v.isTruthy {
                        finish(id, .completed)
                        return
                    }
                }
            }
        }
        // "A durable pause after each pass" (§2.8), the last one included: the checks before
        // the next iteration (the cap, then `condition`) come after it, whichever ends the loop.
        // A truthy `break_on` completed the loop above, without a pause.
        if let seconds = loop.pollIntervalSeconds, seconds > 0 {
            node = runtime[id]
            node.phase = .polling
            // Saturated at the longest §1.4 duration: the value is any JSON integer.
            node.dueAt = now + min(seconds, SequenceLimits.maxDurationMilliseconds / 1000) * 1000
            runtime[id] = node
            return
        }
        loopNextIteration(id, loop: loop)
    }

    // MARK: for_each

    mutating func enterForEach(_ id: NodeID, block: Block, forEach: ForEachBlock) {
        let value: JSONValue
        switch forEach.collection {
        case .path(let segments):
            // Relative to context.data as this node sees it: with the bindings of enclosing
            // concurrent for_each iterations (their overlays), as templates see them.
            value = Self.navigate(.object(scopeData(for: id)), segments)
        case .template(let template):
            do {
                value = try template.render(scope(for: id))
            } catch {
                finish(id, .failed, error: self.error(at: id, error.description))
                return
            }
        }
        let items: [JSONValue]
        switch value {
        case .null: items = []
        case .array(let a): items = Array(a.prefix(forEach.maxIterations))
        default:
            finish(
                id, .failed,
                error: error(at: id, "collection '\(forEach.collectionText)' is a \(Self.jsonTypeWord(value)), expected an array"))
            return
        }
        var node = runtime[id]
        node.progress.items = items
        node.progress.nextIndex = 0
        node.progress.activeIterations = []
        runtime[id] = node
        // The marker exists from entry (as loop's `_iterations: 0` does), so an empty collection
        // still shows `_total: 0`; each iteration then updates `_index`.
        setForEachMarker(id, forEach: forEach, index: 0, total: items.count)
        forEachStartIterations(id, forEach: forEach)
    }

    /// A value's JSON type as RFC 8259 names them (`number` for integers and doubles alike).
    static func jsonTypeWord(_ value: JSONValue) -> String {
        switch value {
        case .integer, .double: "number"
        default: value.typeName
        }
    }

    static func navigate(_ root: JSONValue, _ segments: [String]) -> JSONValue {
        var current = root
        for segment in segments {
            switch current {
            case .object(let o): current = o[segment] ?? .null
            case .array(let a):
                guard segment.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let i = Int(segment), i < a.count else {
                    return .null
                }
                current = a[i]
            default: return .null
            }
        }
        return current
    }

    mutating func setForEachMarker(_ id: NodeID, forEach: ForEachBlock, index: Int, total: Int) {
        guard let block = runtime.block(of: id) else { return }
        var r = record
        r.outputs[block.id.rawValue] = [
            "_index": .integer(Int64(index)), "_total": .integer(Int64(total)),
            "_item_var": .string(forEach.itemVariable),
        ]
        record = r
    }

    /// Starts iterations up to the concurrency bound; completes when all are done.
    mutating func forEachStartIterations(_ id: NodeID, forEach: ForEachBlock) {
        var node = runtime[id]
        let items = node.progress.items ?? []
        let bindsShared = bindsInSharedData(id, forEach: forEach)
        while node.progress.nextIndex < items.count && node.progress.activeIterations.count < forEach.maxConcurrency {
            if record.cancelRequested && !isProtectedNode(id) { break }
            let i = node.progress.nextIndex
            if bindsShared {
                // The binding is a write to context.data: past its limit it fails this block.
                var size = runtime.setDataMember(forEach.itemVariable, to: items[i])
                if let indexVar = forEach.indexVariable { size = runtime.setDataMember(indexVar, to: .integer(Int64(i))) }
                if size > PayloadLimits.maxDataBytes {
                    removeForEachBindings(id, forEach: forEach)
                    finish(id, .failed, error: error(at: id, InstanceMachine.dataSizeMessage(size)))
                    return
                }
            }
            node.progress.nextIndex += 1
            node.progress.activeIterations.append(i)
            runtime[id] = node
            setForEachMarker(id, forEach: forEach, index: i, total: items.count)
            startList(parent: id, list: 0, iteration: i)
            node = runtime[id]
        }
        if node.progress.activeIterations.isEmpty {
            removeForEachBindings(id, forEach: forEach)
            if record.cancelRequested && node.progress.nextIndex < items.count && !isProtectedNode(id) {
                finish(id, .cancelled)
            } else {
                finish(id, .completed)
            }
        }
    }

    /// Whether the for_each binds its item (and index) in the shared `context.data`: only a
    /// sequential one outside every concurrent iteration. Inside one, the shared object is
    /// the other iterations' too, so its bindings are an overlay like the concurrent ones'
    /// (see ``scopeData(for:dataOverride:)``).
    func bindsInSharedData(_ id: NodeID, forEach: ForEachBlock) -> Bool {
        forEach.maxConcurrency <= 1 && !isInsideConcurrentIteration(id)
    }

    /// Whether an enclosing for_each runs its iterations concurrently.
    func isInsideConcurrentIteration(_ id: NodeID) -> Bool {
        var current = runtime[id]
        while let parentID = current.parent {
            if let block = runtime.block(of: parentID), case .forEach(let f) = block.kind, f.maxConcurrency > 1 { return true }
            current = runtime[parentID]
        }
        return false
    }

    mutating func removeForEachBindings(_ id: NodeID, forEach: ForEachBlock) {
        guard bindsInSharedData(id, forEach: forEach) else { return }
        _ = runtime.setDataMember(forEach.itemVariable, to: nil)
        if let indexVar = forEach.indexVariable { _ = runtime.setDataMember(indexVar, to: nil) }
    }

    mutating func forEachIterationFinished(_ id: NodeID, forEach: ForEachBlock, iteration: Int, outcome: ListOutcome) {
        var node = runtime[id]
        node.progress.activeIterations.removeAll { $0 == iteration }
        runtime[id] = node
        switch outcome {
        case .completed:
            forEachStartIterations(id, forEach: forEach)
        case .failed(let e):
            // The first failure cancels the running iterations and fails the block.
            for child in runtime.childNodes(of: id) where !runtime[child].state.isTerminal { cancelSubtree(child) }
            node = runtime[id]
            node.progress.activeIterations = []
            runtime[id] = node
            removeForEachBindings(id, forEach: forEach)
            finish(id, .failed, error: e)
        case .cancelled:
            if node.progress.activeIterations.isEmpty {
                removeForEachBindings(id, forEach: forEach)
                finish(id, .cancelled)
            }
        }
    }

    // MARK: try_catch

    mutating func tryCatchPhaseFinished(
        _ id: NodeID, block: Block, tryCatch: TryCatchBlock, phase: Int, outcome: ListOutcome
    ) {
        var node = runtime[id]
        let hasFinally = tryCatch.finallyBlocks != nil
        func runFinally(_ machine: inout InstanceMachine, pending: NodeError?) {
            var n = machine.runtime[id]
            n.progress.tryPhase = 2
            n.progress.pendingError = pending
            machine.runtime[id] = n
            machine.startList(parent: id, list: 2, iteration: 0)
        }
        switch phase {
        case 0:
            switch outcome {
            case .completed:
                if hasFinally { runFinally(&self, pending: nil) } else { finish(id, .completed) }
            case .cancelled:
                node.progress.cancelledDuringTry = true
                runtime[id] = node
                if hasFinally { runFinally(&self, pending: nil) } else { finish(id, .cancelled) }
            case .failed(let e):
                if record.cancelRequested && !isProtectedNode(id) {
                    node.progress.cancelledDuringTry = true
                    runtime[id] = node
                    if hasFinally { runFinally(&self, pending: e) } else { finish(id, .cancelled) }
                    return
                }
                if let catchBlocks = tryCatch.catchBlocks {
                    if catchBlocks.isEmpty {
                        if hasFinally { runFinally(&self, pending: nil) } else { finish(id, .completed) }
                        return
                    }
                    // `_error` is a write to context.data: past its limit it fails this block
                    // (its finally still runs).
                    let previous = runtime.record.data["_error"]
                    let size = runtime.setDataMember("_error", to: errorObject(for: id, block: block, error: e))
                    if size > PayloadLimits.maxDataBytes {
                        _ = runtime.setDataMember("_error", to: previous)
                        let failure = error(at: id, InstanceMachine.dataSizeMessage(size))
                        if hasFinally { runFinally(&self, pending: failure) } else { finish(id, .failed, error: failure) }
                        return
                    }
                    node.progress.tryPhase = 1
                    runtime[id] = node
                    startList(parent: id, list: 1, iteration: 0)
                } else if hasFinally {
                    runFinally(&self, pending: e)
                } else {
                    finish(id, .failed, error: e)
                }
            }
        case 1:
            switch outcome {
            case .completed:
                if hasFinally { runFinally(&self, pending: nil) } else { finish(id, .completed) }
            case .cancelled:
                node.progress.cancelledDuringTry = true
                runtime[id] = node
                if hasFinally { runFinally(&self, pending: nil) } else { finish(id, .cancelled) }
            case .failed(let e):
                if hasFinally { runFinally(&self, pending: e) } else { finish(id, .failed, error: e) }
            }
        default:
            let cancelled = runtime[id].progress.cancelledDuringTry
            switch outcome {
            case .completed:
                if cancelled {
                    finish(id, .cancelled)
                } else if let pending = runtime[id].progress.pendingError {
                    finish(id, .failed, error: pending)
                } else {
                    finish(id, .completed)
                }
            case .failed(let e):
                finish(id, cancelled ? .cancelled : .failed, error: e)
            case .cancelled:
                finish(id, .cancelled)
            }
        }
    }

    /// `_error` for a catch phase (SEMANTICS §2.8).
    func errorObject(for id: NodeID, block: Block, error: NodeError) -> JSONValue {
        let failed = runtime.childNodes(of: id)
            .filter { runtime[$0].list == 0 && runtime[$0].state == .failed }
            .compactMap { runtime.block(of: $0)?.id.rawValue }
        var o: JSONObject = [
            "failed_blocks": .array(failed.map(JSONValue.string)), "source": "try_catch",
            "block_id": .string(block.id.rawValue), "message": .string(error.message),
        ]
        if let code = error.code { o["code"] = .string(code) }
        return .object(o)
    }

    // MARK: sub_sequence

    static let maxSubSequenceDepth = 16

    mutating func enterSubSequence(_ id: NodeID, block: Block, sub: SubSequenceBlock) {
        let input: JSONValue
        do {
            input = try sub.input.resolve(scope(for: id))
        } catch {
            finish(id, .failed, error: self.error(at: id, error.description))
            return
        }
        guard case .object(let object) = input else {
            finish(id, .failed, error: error(at: id, "input must resolve to an object, got \(input.typeName)"))
            return
        }
        // The input becomes the child's context.data, under the same limit.
        if let problem = dataSizeProblem(object) {
            finish(id, .failed, error: error(at: id, problem))
            return
        }
        guard let key = context.findSequence(sub.sequenceName, sub.version) else {
            finish(id, .failed, error: error(at: id, "sub-sequence '\(sub.sequenceName)' not found"))
            return
        }
        if record.depth + 1 > Self.maxSubSequenceDepth {
            finish(
                id, .failed,
                error: error(at: id, "sub-sequence depth \(record.depth + 1) exceeds the limit of \(Self.maxSubSequenceDepth)"))
            return
        }
        let child = context.makeInstanceID()
        var node = runtime[id]
        node.state = .waiting
        node.phase = .awaitingChild
        node.progress.childInstance = child.rawValue
        runtime[id] = node
        effect(.startChild(node: id, child: child, sequence: key, input: object))
    }

    /// The child instance of a sub_sequence node ended.
    mutating func childInstanceFinished(_ id: NodeID, state: InstanceState, data: JSONObject, error childError: InstanceError?) {
        guard id.rawValue < runtime.allNodes.count else { return }
        let node = runtime[id]
        guard node.phase == .awaitingChild, !node.state.isTerminal, let block = runtime.block(of: id) else { return }
        switch state {
        case .completed:
            var r = record
            r.outputs[block.id.rawValue] = .object(data)
            record = r
            finish(id, .completed)
        case .failed:
            finish(id, .failed, error: error(at: id, childError?.message ?? "child instance failed", code: childError?.code))
        default:
            if record.cancelRequested {
                finish(id, .cancelled)
            } else {
                finish(id, .failed, error: error(at: id, "child instance was cancelled"))
            }
        }
        drain()
    }

    // MARK: a_b_split (SEMANTICS §2.8)

    /// The variant chosen for `instance` at block `blockID`: SHA-256 of the UUID bytes, 0x00 and
    /// the block id; the first 8 bytes big-endian, modulo the total weight.
    static func chooseVariant(instance: InstanceID, blockID: String, weights: [Int64]) -> Int? {
        let total = weights.reduce(0, +)
        guard total > 0 else { return nil }
        let digest = SHA256.digest(of: instance.bytes + [0] + Array(blockID.utf8))
        var h: UInt64 = 0
        for byte in digest.prefix(8) { h = h << 8 | UInt64(byte) }
        let target = h % UInt64(total)
        var cumulative: UInt64 = 0
        for (i, w) in weights.enumerated() {
            cumulative += UInt64(w)
            if w > 0 && target < cumulative { return i }
        }
        return nil
    }

    mutating func enterSplit(_ id: NodeID, block: Block, split: ABSplitBlock) {
        guard let chosen = Self.chooseVariant(instance: runtime.id, blockID: block.id.rawValue, weights: split.variants.map(\.weight))
        else {
            finish(id, .failed, error: error(at: id, "no variant has a positive weight"))
            return
        }
        var r = record
        r.outputs[block.id.rawValue] = [
            "variant": .string(split.variants[chosen].name), "variant_index": .integer(Int64(chosen)),
        ]
        record = r
        var node = runtime[id]
        node.progress.chosenList = chosen
        runtime[id] = node
        startList(parent: id, list: chosen, iteration: 0)
    }
}
