import StepwiseJSON
import StepwiseSequences

extension StepwiseEngine {
    /// Whether the sync channel is configured.
    var isChannelConfigured: Bool { !configuration.syncUrl.isEmpty }

    /// Outbox writes for what a pass changed (SYNC.md §2.2), in the same batch.
    func outboxWrites(instances: Set<InstanceID>, journal: [JournalEntry], now: Int64) -> [OutboxWrite] {
        guard writesOutbox else { return [] }
        var writes: [OutboxWrite] = instances.sorted().map { .touchStatus($0) }
        for entry in journal {
            switch entry.kind {
            case .stepPending:
                guard let step = entry.stepID, let waitID = entry.payload["wait_id"]?.stringValue else { continue }
                writes.append(
                    .put(
                        OutboxRow(
                            kind: .approval, key: "\(entry.instance.rawValue):\(step):\(waitID)", instanceID: entry.instance,
                            generation: 1, payload: approvalPayload(entry), createdAt: now)))
            case .inputReceived:
                guard let step = entry.stepID, let waitID = entry.payload["wait_id"]?.stringValue else { continue }
                writes.append(.delete(kind: .approval, key: "\(entry.instance.rawValue):\(step):\(waitID)", generation: nil))
            case .stepDelegated:
                guard let step = entry.stepID else { continue }
                let p = entry.payload
                writes.append(
                    .put(
                        OutboxRow(
                            kind: .delegation, key: "\(entry.instance.rawValue):\(step)", instanceID: entry.instance,
                            generation: 1,
                            payload: [
                                "request_id": p["request_id"] ?? .null, "instance_id": .string(entry.instance.rawValue),
                                "block_id": .string(step), "handler": p["handler"] ?? .null, "params": p["params"] ?? .null,
                            ],
                            createdAt: now)))
            default:
                continue
            }
        }
        return writes
    }

    /// Metadata key set once the outbox holds the state of the instances that existed when the
    /// channel was first configured.
    static let outboxSeededKey = "outbox.seeded"

    /// The first time an engine with a sync channel opens a database (one written without a
    /// channel: an app adding sync, or `stepwise run` followed by `stepwise sync`), the outbox is
    /// seeded with a status row for every unfinished instance and an approval row for every open
    /// wait: otherwise the server would learn of them only when they next change. Once per
    /// database; later changes are queued as they commit.
    func seedOutboxIfNeeded() {
        guard !outboxSeedChecked else { return }
        outboxSeedChecked = true
        guard isChannelConfigured, (try? store.metadata(Self.outboxSeededKey)) == nil else { return }
        var instances: Set<InstanceID> = []
        var waits: [JournalEntry] = []
        for runtime in live.values where !runtime.record.state.isTerminal {
            instances.insert(runtime.id)
            for node in runtime.activeNodes where node.phase == .awaitingInput {
                guard let block = runtime.block(of: node.id), case .step(let step) = block.kind, let wait = step.waitForInput,
                    let waitID = node.progress.waitID
                else { continue }
                var payload: JSONObject = [
                    "handler": .string(step.handler), "prompt": .string(wait.prompt), "wait_id": .string(waitID),
                ]
                payload["choices"] = wait.choices.map { .array($0.map { ["label": .string($0.label), "value": .string($0.value)] }) } ?? .null
                payload["store_as"] = wait.storeAs.map(JSONValue.string) ?? .null
                payload["timeout_at"] = node.dueAt.map { .integer($0) } ?? .null
                waits.append(
                    JournalEntry(
                        instance: runtime.id, node: node.id, kind: .stepPending, stepID: block.id.rawValue, attempt: node.attempt,
                        at: node.progress.waitOpenedAt ?? node.progress.attemptStartedAt ?? runtime.record.updatedAt,
                        payload: .object(payload)))
            }
        }
        commandWrites += outboxWrites(instances: instances, journal: waits, now: clock.now())
        pendingBatch.metadata.append((Self.outboxSeededKey, "1"))
    }

    /// The `approval_requests` element of a wait (SYNC.md §2.3).
    private func approvalPayload(_ entry: JournalEntry) -> JSONValue {
        let p = entry.payload
        let runtime = live[entry.instance]
        var timeoutSeconds: JSONValue = .null
        if let node = entry.node, let runtime, let block = runtime.block(of: node), case .step(let s) = block.kind,
            let ms = s.waitForInput?.timeoutMilliseconds
        {
            timeoutSeconds = .integer((ms + 999) / 1000)
        }
        return [
            "instance_id": .string(entry.instance.rawValue), "block_id": .string(entry.stepID ?? ""),
            "sequence_name": .string(runtime?.record.sequence.name ?? ""), "prompt": p["prompt"] ?? "",
            "choices": p["choices"] ?? .null, "store_as": p["store_as"] ?? .null, "timeout_seconds": timeoutSeconds,
            "metadata": [
                "wait_id": p["wait_id"] ?? .null, "handler": p["handler"] ?? .null,
                "iteration": .string(entry.node.flatMap { n in runtime.map { $0.iterationPath(of: n) } } ?? "_"),
                "since": .string(Timestamp.rfc3339(entry.at)),
            ],
        ]
    }

    /// The `status_updates` element of an instance, built from its current state (SYNC.md §2.3).
    func statusPayload(_ id: InstanceID) throws(StepwiseError) -> JSONValue? {
        let record: InstanceRecord
        let restored: InstanceRuntime?
        if let live = live[id] {
            record = live.record
            restored = live
        } else if let loaded = try store.loadInstance(id) {
            record = loaded.0
            // A damaged tree, or a version no longer readable, still reports the instance's
            // state and error (without steps): one bad row must not stop every sync.
            restored = try? InstanceRuntime(record: loaded.0, program: try program(for: loaded.0.sequence), nodes: loaded.1)
        } else {
            return nil
        }
        var steps: [JSONValue] = []
        var currentStep: String?
        var handler: JSONValue = .null
        if let runtime = restored {
            currentStep = snapshot(of: runtime).currentStep
            // §2.3: in loop and for_each bodies, the latest iteration's node. A node counts when
            // it and each of its ancestors belong to their parent's latest iteration, so a block
            // the current iteration has not reached yet reads `pending`, not an earlier pass.
            var latestIteration: [Int: Int] = [:]
            for node in runtime.allNodes {
                if let parent = node.parent { latestIteration[parent.rawValue] = max(latestIteration[parent.rawValue] ?? 0, node.iteration) }
            }
            func isLatest(_ node: Node) -> Bool {
                var current = node
                while let parent = current.parent {
                    if current.iteration != latestIteration[parent.rawValue] { return false }
                    current = runtime[parent]
                }
                return true
            }
            var latestByBlock: [Int: Node] = [:]
            for node in runtime.allNodes where node.id != .root && isMainTree(node, in: runtime) && isLatest(node) {
                latestByBlock[node.blockIndex] = node
            }
            // A block with no node never started. §2.2: once the instance has ended it reads
            // `skipped` (completed) or `cancelled` (failed, cancelled); before that `pending`,
            // unless nothing can start it any more (`inherited`).
            let ended: String?
            switch record.state {
            case .completed: ended = NodeState.skipped.rawValue
            case .failed, .cancelled: ended = NodeState.cancelled.rawValue
            default: ended = nil
            }
            func visit(_ list: [Int], inherited: String?) {
                for index in list {
                    let block = runtime.program.blocks[index]
                    let node = latestByBlock[index]
                    var entry: JSONObject = [
                        "block_id": .string(block.id.rawValue), "block_type": .string(Self.orch8TreeName(block.type)),
                        "state": .string(node?.state.rawValue ?? inherited ?? ended ?? NodeState.pending.rawValue),
                    ]
                    if case .step(let s) = block.kind { entry["handler"] = .string(s.handler) }
                    entry["started_at"] = node?.startedAt.map { .string(Timestamp.rfc3339($0)) } ?? .null
                    entry["completed_at"] = node?.finishedAt.map { .string(Timestamp.rfc3339($0)) } ?? .null
                    steps.append(.object(entry))
                    for (list, child) in runtime.program.childLists[index].enumerated() {
                        var skipped = inherited
                        if let node {
                            switch block.kind {
                            // §2.8: the routes and variants not chosen are skipped.
                            case .router, .abSplit: if node.progress.chosenList != list { skipped = NodeState.skipped.rawValue }
                            default: break
                            }
                            // Under a block that completed, nothing else starts.
                            if node.state == .completed || node.state == .skipped { skipped = NodeState.skipped.rawValue }
                        }
                        visit(child, inherited: skipped)
                    }
                }
            }
            visit(runtime.program.rootLists[SequenceProgram.mainList], inherited: nil)
            if let currentStep, let block = runtime.program.blocks.first(where: { $0.id.rawValue == currentStep }),
                case .step(let s) = block.kind
            {
                handler = .string(s.handler)
            }
        }
        return [
            "instance_id": .string(id.rawValue), "sequence_name": .string(record.sequence.name),
            "sequence_version": .integer(Int64(record.sequence.version)),
            "state": .string(record.state.rawValue.prefix(1).uppercased() + record.state.rawValue.dropFirst()),
            "current_step": currentStep.map(JSONValue.string) ?? .null, "handler": handler,
            "steps": .array(steps), "error": record.error.map { .string($0.message) } ?? .null,
            "parent_instance_id": record.parentInstance.map { .string($0.rawValue) } ?? .null,
            "timestamp": .string(Timestamp.rfc3339(record.updatedAt)),
        ]
    }

    private func isMainTree(_ node: Node, in runtime: InstanceRuntime) -> Bool {
        var current = node
        while let parent = current.parent {
            if parent == .root { return current.list == SequenceProgram.mainList }
            current = runtime[parent]
        }
        return false
    }

    static func orch8TreeName(_ type: BlockType) -> String {
        type == .abSplit ? "ab_split" : type.rawValue
    }
}
