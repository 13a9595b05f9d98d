public import StepwiseJSON
import StepwiseSequences

/// A sync request assembled from the outbox, and the rows it carries.
public struct SyncRequestDraft: Sendable {
    /// The request body (SYNC.md §2.3).
    public let body: JSONValue
    /// The rows to delete after a 2xx response.
    public let sent: [OutboxRow]
    /// Whether more rows remain beyond this request's limits.
    public let hasMore: Bool
}

extension StepwiseEngine {
    /// The most status and approval bytes one sync request carries (at least one row goes
    /// whatever its size); the rest follow in the next request of the same cycle.
    static let syncRequestByteBudget = 2 << 20

    /// Assembles the next sync request from the outbox: oldest first, at most 100 statuses, 50
    /// approvals, 20 delegations, 100 acks and 100 results, and about 2 MiB of statuses and
    /// approvals; approvals whose wait closed are dropped.
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`.
    public func draftSyncRequest(deviceID: String) throws(StepwiseError) -> SyncRequestDraft {
        try checkOpen()
        var sent: [OutboxRow] = []
        var stale = StoreBatch()
        var statuses: [JSONValue] = []
        // A byte budget besides the counts: a server takes bounded bodies (the reference one
        // 8 MiB), and a request refused for its size would be retried with the same rows
        // forever. A status of a large sequence (one entry per block) can be close to 1 MiB.
        var bytes = 0
        var overBudget = false
        func fits(_ payload: JSONValue) -> Bool {
            let size = JSONWriter.bytes(payload).count
            guard sent.isEmpty || bytes + size <= Self.syncRequestByteBudget else {
                overBudget = true
                return false
            }
            bytes += size
            return true
        }
        let statusRows = try store.outboxRows(.status, limit: 101)
        for row in statusRows.prefix(100) {
            guard let id = row.instanceID, let payload = try statusPayload(id) else {
                stale.outbox.append(.delete(kind: .status, key: row.key, generation: row.generation))
                continue
            }
            guard fits(payload) else { break }
            statuses.append(payload)
            sent.append(row)
        }
        var approvals: [JSONValue] = []
        let approvalRows = try store.outboxRows(.approval, limit: 51)
        for row in approvalRows.prefix(50) where !overBudget {
            let waitID = row.payload["metadata"]?["wait_id"]?.stringValue
            let open = row.instanceID.flatMap { live[$0] }.map { runtime in
                runtime.activeNodes.contains { $0.phase == .awaitingInput && $0.progress.waitID == waitID }
            } ?? false
            if open {
                guard fits(row.payload) else { break }
                approvals.append(row.payload)
                sent.append(row)
            } else {
                stale.outbox.append(.delete(kind: .approval, key: row.key, generation: nil))
            }
        }
        let delegationRows = try store.outboxRows(.delegation, limit: 21)
        let ackRows = try store.outboxRows(.ack, limit: 101)
        let resultRows = try store.outboxRows(.result, limit: 101)
        sent += delegationRows.prefix(20) + ackRows.prefix(100) + resultRows.prefix(100)
        if !stale.outbox.isEmpty {
            stale.now = clock.now()
            try store.commit(stale)
        }
        var body: JSONObject = [
            "device_id": .string(deviceID), "status_updates": .array(statuses), "approval_requests": .array(approvals),
            "step_delegations": .array(delegationRows.prefix(20).map(\.payload)),
            "command_acks": .array(ackRows.prefix(100).map { .string($0.key) }),
            "command_results": .array(resultRows.prefix(100).map(\.payload)),
        ]
        if !configuration.environment.isEmpty { body["environment"] = .string(configuration.environment) }
        let hasMore = overBudget || statusRows.count > 100 || approvalRows.count > 50 || delegationRows.count > 20
            || ackRows.count > 100 || resultRows.count > 100
        return SyncRequestDraft(body: .object(body), sent: sent, hasMore: hasMore)
    }

    /// Deletes exactly the rows a request carried, after a 2xx response; a row only if its
    /// generation did not change meanwhile.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    public func confirmSyncDelivery(_ sent: [OutboxRow]) throws(StepwiseError) {
        var batch = StoreBatch()
        batch.now = clock.now()
        // By generation for every kind: a row replaced while the request was out (a newer status,
        // a delegation re-issued) keeps its newer version for the next request.
        batch.outbox = sent.map { .delete(kind: $0.kind, key: $0.key, generation: $0.generation) }
        if !batch.outbox.isEmpty { try store.commit(batch) }
    }

    /// Executes one server command exactly once per id (SYNC.md §2.5–2.7): `done` and
    /// `rejected` commit a marker, an ack and a result with the action's change; `retry`
    /// writes nothing so the server re-delivers.
    public func executeSyncCommand(_ json: JSONValue) -> SyncCommandOutcome {
        guard let command = SyncCommand(json: json) else {
            return SyncCommandOutcome(id: json["id"]?.stringValue, kind: .skipped, instanceId: nil, error: "command without a string id and type")
        }
        // A round trip still out when the engine closed writes nothing; the server re-delivers.
        guard !isClosed else {
            return SyncCommandOutcome(id: command.id, kind: .retry, instanceId: nil, error: "the engine was shut down")
        }
        let marker: String?
        do {
            marker = try store.commandMarker(command.id)
        } catch {
            // Unknown whether it ran: running it again could repeat it (SYNC.md §2.6).
            return SyncCommandOutcome(id: command.id, kind: .retry, instanceId: nil, error: error.message)
        }
        if let outcome = marker {
            // Already executed: re-queue the ack if it was lost.
            var batch = StoreBatch()
            batch.now = clock.now()
            batch.outbox = [.put(OutboxRow(kind: .ack, key: command.id, instanceID: nil, generation: 1, payload: .string(command.id), createdAt: batch.now))]
            try? store.commit(batch)
            var repeated = SyncCommandOutcome(id: command.id, kind: outcome == "rejected" ? .rejected : .done, instanceId: nil, error: nil)
            repeated.wasAlreadyExecuted = true
            return repeated
        }
        do {
            let started = try perform(command)
            return SyncCommandOutcome(id: command.id, kind: .done, instanceId: started, error: nil)
        } catch {
            discardUncommittedChanges()
            switch error.code {
            // A sequence not installed yet (its error names it) is transient; an unknown
            // instance is not (SYNC.md §2.6).
            case .notFound where ["start_workflow", "update_sequence"].contains(command.type) && error.context["name"] != nil,
                .resourceLimit, .unregisteredHandler, .storage, .timeout, .shutdown:
                return SyncCommandOutcome(id: command.id, kind: .retry, instanceId: nil, error: error.message)
            default:
                var batch = StoreBatch()
                batch.now = clock.now()
                batch.outbox = finishWrites(command.id, outcome: "rejected", instance: nil, error: error.message, now: batch.now)
                try? store.commit(batch)
                return SyncCommandOutcome(id: command.id, kind: .rejected, instanceId: nil, error: error.message)
            }
        }
    }

    /// Marker, ack and result rows of a finished command.
    private func finishWrites(_ id: String, outcome: String, instance: InstanceID?, error: String?, now: Int64) -> [OutboxWrite] {
        var result: JSONObject = ["id": .string(id), "outcome": .string(outcome)]
        result["instance_id"] = instance.map { .string($0.rawValue) } ?? .null
        result["error"] = error.map(JSONValue.string) ?? .null
        return [
            .marker(commandID: id, outcome: outcome),
            .put(OutboxRow(kind: .ack, key: id, instanceID: nil, generation: 1, payload: .string(id), createdAt: now)),
            .put(OutboxRow(kind: .result, key: id, instanceID: nil, generation: 1, payload: .object(result), createdAt: now)),
        ]
    }

    /// Runs the action with the command's marker rows attached to its commit.
    private func perform(_ command: SyncCommand) throws(StepwiseError) -> InstanceID? {
        let p = command.payload
        // A field of the wrong type is a malformed payload (rejected, SYNC.md §2.6): read as
        // absent, a numeric dedup_key would lose deduplication and a numeric wait_id would
        // answer whichever wait is oldest.
        for key in ["instance_id", "dedup_key", "wait_id", "step_name", "block_id", "sequence_name", "request_id"] {
            if let value = p[key], value != .null, value.stringValue == nil {
                throw StepwiseError(.invalidInput, "\(command.type): \(key) must be a string, got \(value.typeName)")
            }
        }
        func instanceID() throws(StepwiseError) -> InstanceID {
            guard let text = p["instance_id"]?.stringValue, let id = InstanceID(rawValue: text) else {
                throw StepwiseError(.invalidInput, "\(command.type) needs a valid instance_id")
            }
            return id
        }
        func attach(_ instance: InstanceID?) {
            commandWrites = finishWrites(command.id, outcome: "done", instance: instance, error: nil, now: clock.now())
        }
        switch command.type {
        case "complete_step":
            let id = try instanceID()
            guard let step = p["step_name"]?.stringValue ?? p["block_id"]?.stringValue else {
                throw StepwiseError(.invalidInput, "complete_step needs step_name or block_id")
            }
            guard let output = p["output"] else {
                throw StepwiseError(.invalidInput, "complete_step needs output (an object or JSON text)")
            }
            attach(nil)
            try completeStep(instanceId: id, stepId: step, output: output, waitId: p["wait_id"]?.stringValue)
            return nil
        case "cancel_instance":
            let id = try instanceID()
            attach(nil)
            if try isTerminal(id) { try commitCommandOnly(); return nil }
            try cancelInstance(id)
            return nil
        case "start_workflow":
            guard let name = p["sequence_name"]?.stringValue else {
                throw StepwiseError(.invalidInput, "start_workflow needs sequence_name")
            }
            var options = StartOptions()
            if let text = p["instance_id"]?.stringValue {
                guard let id = InstanceID(rawValue: text) else { throw StepwiseError(.invalidInput, "instance_id is not a UUID") }
                options.instanceId = id
            }
            // The id is chosen first so the result that carries it commits with the new instance.
            let planned = options.instanceId ?? freshInstanceID()
            options.instanceId = planned
            attach(planned)
            let id = try start(name, input: p["input"] ?? .object(JSONObject()), dedupKey: p["dedup_key"]?.stringValue, options: options)
            if id != planned {
                // The dedup key is held by a live instance: nothing was started or committed;
                // the command is done, its result naming that instance.
                attach(id)
                try commitCommandOnly()
            }
            return id
        case "send_signal":
            let id = try instanceID()
            var type = p["signal_type"]?.stringValue
            if type == nil, let custom = p["signal_type"]?["custom"]?.stringValue { type = custom }
            guard let type else { throw StepwiseError(.invalidInput, "send_signal needs signal_type") }
            attach(nil)
            try sendSignal(instanceId: id, type: type, payload: p["payload"] ?? .null)
            return nil
        case "update_sequence":
            return try updateSequence(command, instance: try instanceID())
        case "step_result":
            guard let requestID = p["request_id"]?.stringValue else {
                throw StepwiseError(.invalidInput, "step_result needs request_id")
            }
            guard let succeeded = p["success"]?.boolValue else {
                throw StepwiseError(.invalidInput, "step_result needs success (true or false)")
            }
            if succeeded && p["resolved_params"] == nil {
                throw StepwiseError(.invalidInput, "step_result with success true needs resolved_params")
            }
            attach(nil)
            let id = p["instance_id"]?.stringValue.flatMap(InstanceID.init(rawValue:))
            guard let id, let runtime = live[id],
                runtime.activeNodes.contains(where: { $0.phase == .delegated && $0.progress.delegationRequestID == requestID })
            else {
                // No attempt is delegated with this request id (unknown or superseded): done and ignored.
                try commitCommandOnly()
                return nil
            }
            var resolved: JSONValue? = nil
            if succeeded {
                resolved = p["resolved_params"]
                if case .string(let text)? = resolved, let parsed = try? JSONParser.parse(text) { resolved = parsed }
            }
            let failure = p["error"]?.stringValue
            var call: HandlerCall?
            try transition(id) { call = $0.delegationResolved(requestID: requestID, resolvedParams: resolved, error: failure) }
            // The secrets go to the handler call only, never to the store (SYNC.md §2.8); the
            // call waits for a free slot like any other.
            if let call { resolvedCalls.append(call) }
            try commitPass()
            wake()
            return nil
        default:
            throw StepwiseError(.invalidInput, "unknown command type '\(command.type)'")
        }
    }

    private func isTerminal(_ id: InstanceID) throws(StepwiseError) -> Bool {
        if let runtime = live[id] { return runtime.record.state.isTerminal }
        guard let loaded = try store.loadInstance(id) else {
            throw StepwiseError(.notFound, "instance \(id) not found")
        }
        return loaded.0.state.isTerminal
    }

    /// Commits the attached command rows on their own (idempotent no-ops).
    private func commitCommandOnly() throws(StepwiseError) {
        try commitPass()
    }

    /// `update_sequence` policies (SYNC.md §2.7).
    private func updateSequence(_ command: SyncCommand, instance id: InstanceID) throws(StepwiseError) -> InstanceID? {
        let p = command.payload
        let loaded: (InstanceRecord, [Node])
        if let runtime = live[id] {
            loaded = (runtime.record, runtime.allNodes)
        } else if let stored = try store.loadInstance(id) {
            loaded = stored
        } else {
            throw StepwiseError(.notFound, "instance \(id) not found")
        }
        let (record, nodes) = loaded
        // A field of the wrong type is a malformed payload (rejected), not a default.
        func field<T>(_ key: String, _ what: String, _ read: (JSONValue) -> T?) throws(StepwiseError) -> T? {
            guard let value = p[key], value != .null else { return nil }
            guard let typed = read(value) else { throw StepwiseError(.invalidInput, "update_sequence \(key) must be \(what)") }
            return typed
        }
        let name = try field("sequence_name", "a string", \.stringValue) ?? record.sequence.name
        let version = try field("version", "an integer", { $0.exactIntegerValue.map { Int($0) } })
        let given = try field("input", "an object or JSON text") { value -> JSONObject? in
            if case .string(let text) = value { return (try? JSONParser.parse(text))?.objectValue }
            return value.objectValue
        }
        let input = given ?? originalInput(of: id) ?? JSONObject()
        let policy = try field("policy", "a string", \.stringValue) ?? "restart"
        /// Starts the new instance; the old one's cancellation (made just before, not committed
        /// yet), the new instance and the command's rows commit in one transaction (§2.6).
        func startNew(data: JSONObject, precompleted: JSONObject?) throws(StepwiseError) -> InstanceID {
            guard resolveSequence(name, version: version) != nil else {
                throw sequenceNotFound(name)
            }
            let newID = freshInstanceID()
            commandWrites = finishWrites(command.id, outcome: "done", instance: newID, error: nil, now: clock.now())
            var options = StartOptions(version: version)
            options.instanceId = newID
            return try start(name, input: .object(data), options: options, precompleted: precompleted)
        }
        /// Requests the old instance's cancellation without committing it (startNew commits it).
        func cancelOld() throws(StepwiseError) {
            guard !record.state.isTerminal, live[id] != nil else { return }
            try transition(id) { $0.requestCancellation() }
        }
        switch policy {
        case "restart":
            try cancelOld()
            return try startNew(data: input, precompleted: nil)
        case "cancel":
            commandWrites = finishWrites(command.id, outcome: "done", instance: nil, error: nil, now: clock.now())
            if record.state.isTerminal { try commitPass() } else { try cancelInstance(id) }
            return nil
        case "fail":
            commandWrites = finishWrites(command.id, outcome: "done", instance: nil, error: nil, now: clock.now())
            if !record.state.isTerminal, live[id] != nil {
                try transition(id) { $0.failInstance("failed by server command") }
            }
            try commitPass()
            return nil
        case "graceful":
            guard resolveSequence(name, version: version) != nil else {
                throw sequenceNotFound(name)
            }
            if record.state.isTerminal { return try startNew(data: input, precompleted: nil) }
            var followUp: JSONObject = ["sequence_name": .string(name), "input": .object(input)]
            if let version { followUp["version"] = .integer(Int64(version)) }
            commandWrites = finishWrites(command.id, outcome: "done", instance: nil, error: nil, now: clock.now())
            pendingBatch.metadata.append(("followup:\(id.rawValue)", JSONWriter.string(.object(followUp))))
            try commitPass()
            return nil
        case "skip_executed":
            var data = record.data
            for (k, v) in given ?? JSONObject() { data[k] = v }
            var done = JSONObject()
            let program = try program(for: record.sequence)
            let runtime: InstanceRuntime
            do {
                runtime = try InstanceRuntime(record: record, program: program, nodes: nodes)
            } catch {
                // Permanent: redelivering the command cannot repair the file.
                throw StepwiseError(.invalidState, error.message, context: error.context)
            }
            for node in nodes where node.state == .completed && node.id != .root {
                guard let block = runtime.block(of: node.id), case .step = block.kind,
                    runtime.iterationPath(of: node.id) == "_", let output = record.outputs[block.id.rawValue]
                else { continue }
                done[block.id.rawValue] = output
            }
            try cancelOld()
            return try startNew(data: data, precompleted: done)
        default:
            throw StepwiseError(.invalidInput, "unknown update_sequence policy '\(policy)'")
        }
    }

    /// The `start` input of an instance: its `instance_started` journal entry's, or (written by
    /// an older version, for instances started with a sync channel) the `input:<id>` metadata.
    private func originalInput(of id: InstanceID) -> JSONObject? {
        if let started = (try? store.journal(of: id))?.first(where: { $0.kind == .instanceStarted }),
            let input = started.payload["input"]?.objectValue
        {
            return input
        }
        return (try? store.metadata("input:\(id.rawValue)")).flatMap { $0 }.flatMap { try? JSONParser.parse($0).objectValue }
    }

    /// Metadata key of the instances whose `graceful` follow-up waits for its sequence (a JSON
    /// array of ids): retried when a version is installed and at housekeeping, after restarts too.
    static let waitingFollowUpsKey = "followups.waiting"

    /// Starts the follow-up of a `graceful` update when its instance ended. When its sequence
    /// cannot be resolved then (retired or removed since the command), the follow-up stays
    /// persisted and waits for it (see ``retryWaitingFollowUps()``): the command was `done`,
    /// so the new instance is owed.
    func startFollowUpIfAny(of id: InstanceID) {
        guard let text = (try? store.metadata("followup:\(id.rawValue)")).flatMap({ $0 }), !text.isEmpty,
            let followUp = try? JSONParser.parse(text), let name = followUp["sequence_name"]?.stringValue
        else {
            setFollowUp(of: id, waiting: false)
            return
        }
        let version = followUp["version"]?.exactIntegerValue.map { Int($0) }
        guard let key = resolveSequence(name, version: version), let program = try? program(for: key) else {
            setFollowUp(of: id, waiting: true)
            return
        }
        setFollowUp(of: id, waiting: false)
        let now = clock.now()
        let record = InstanceRecord(
            id: freshInstanceID(), sequence: key, state: .scheduled,
            data: followUp["input"]?.objectValue ?? JSONObject(), config: JSONObject(), createdAt: now, updatedAt: now,
            lifetimeStartedAt: now, randomSeed: random.next())
        live[record.id] = InstanceRuntime(record: record, program: program)
        pendingBatch.metadata.append(("followup:\(id.rawValue)", ""))
        transitionIgnoringErrors(record.id) { $0.start() }
    }

    /// Starts the `graceful` follow-ups that wait for their sequence, where it now resolves.
    func retryWaitingFollowUps() {
        for id in loadedWaitingFollowUps().sorted() { startFollowUpIfAny(of: id) }
    }

    /// ``waitingFollowUps``, read from the store the first time.
    func loadedWaitingFollowUps() -> Set<InstanceID> {
        if let waitingFollowUps { return waitingFollowUps }
        let stored = (try? store.metadata(Self.waitingFollowUpsKey)).flatMap { $0 }.flatMap { try? JSONParser.parse($0) }
        let ids = Set((stored?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(InstanceID.init(rawValue:)) })
        waitingFollowUps = ids
        return ids
    }

    /// Records whether `id`'s follow-up waits for its sequence (persisted when it changes).
    private func setFollowUp(of id: InstanceID, waiting: Bool) {
        var ids = loadedWaitingFollowUps()
        let changed = waiting ? ids.insert(id).inserted : ids.remove(id) != nil
        waitingFollowUps = ids
        guard changed else { return }
        pendingBatch.metadata.append((Self.waitingFollowUpsKey, JSONWriter.string(.array(ids.sorted().map { .string($0.rawValue) }))))
    }
}
