import StepwiseJSON

extension StepwiseEngine {
    static let listenerCursorKey = "listener.cursor"

    /// Sets the listener (replacing any previous one); events produced while none was set are
    /// delivered to it, from the persisted cursor on.
    public func setListener(_ listener: (any EngineListener)?) {
        self.listener = listener
        deliveryGeneration += 1
        guard listener != nil, deliveryTask == nil else {
            if listener != nil { wakeDelivery() }
            return
        }
        deliveryTask = Task { [weak self] in
            while let self, await self.deliverPendingEvents() {}
        }
    }

    func wakeDelivery() {
        if let continuation = deliveryContinuation {
            deliveryContinuation = nil
            continuation.resume()
        } else {
            deliveryWakePending = true
        }
    }

    /// Delivers every journal entry after the cursor; then waits for more. Returns false to stop.
    private func deliverPendingEvents() async -> Bool {
        guard let listener, !isClosed else {
            deliveryTask = nil
            return false
        }
        let generation = deliveryGeneration
        let cursor = (try? store.metadata(Self.listenerCursorKey)).flatMap { $0.flatMap(Int64.init) } ?? 0
        let entries = (try? store.journal(after: cursor, limit: 200)) ?? []
        if entries.isEmpty {
            // Checked inside the body: entering `withCheckedContinuation` can hop executors, and
            // a wake run in that gap must not be lost.
            await withCheckedContinuation { continuation in
                if deliveryWakePending || isShutdown {
                    deliveryWakePending = false
                    continuation.resume()
                } else {
                    deliveryContinuation = continuation
                }
            }
            return true
        }
        for entry in entries {
            guard generation == deliveryGeneration, !isClosed else { return true }
            await deliver(entry, to: listener)
            var batch = StoreBatch()
            batch.metadata = [(Self.listenerCursorKey, String(entry.sequence))]
            try? store.commit(batch)
        }
        return true
    }

    private func deliver(_ entry: JournalEntry, to listener: any EngineListener) async {
        let id = entry.instance
        let step = entry.stepID ?? ""
        switch entry.kind {
        case .instanceCompleted:
            await listener.onInstanceCompleted(id, data: entry.payload["data"] ?? .object(JSONObject()))
        case .instanceFailed:
            await listener.onInstanceFailed(id, error: entry.payload["error"]?.stringValue ?? "failed")
        case .instanceCancelled:
            await listener.onInstanceCancelled(id)
        case .stepStarted:
            await listener.onStepStarted(id, stepId: step, attempt: entry.attempt ?? 1)
        case .stepCompleted:
            await listener.onStepCompleted(id, stepId: step, output: entry.payload["output"] ?? .null)
        case .inputReceived:
            await listener.onStepCompleted(id, stepId: step, output: entry.payload["value"] ?? .null)
        case .stepFailed:
            await listener.onStepFailed(
                id, stepId: step, error: entry.payload["error"]?.stringValue ?? "failed",
                willRetry: entry.payload["will_retry"]?.boolValue ?? false)
        case .stepPending:
            let p = entry.payload
            let choices = p["choices"]?.arrayValue?.compactMap { c -> (label: String, value: String)? in
                guard let value = c["value"]?.stringValue else { return nil }
                return (c["label"]?.stringValue ?? value, value)
            }
            await listener.onStepPending(
                PendingStep(
                    waitId: p["wait_id"]?.stringValue ?? "", instanceId: id, stepId: step,
                    handler: p["handler"]?.stringValue ?? "", prompt: p["prompt"]?.stringValue ?? "", choices: choices,
                    storeAs: p["store_as"]?.stringValue, since: entry.at, timeoutAt: p["timeout_at"]?.exactIntegerValue))
        case .stepSucceeded, .stepSkipped, .hookFailed, .instanceRedriven, .instanceStarted, .stepDelegated, .manifestApplied:
            break
        }
    }
}

extension StepwiseEngine {
    /// Whether the listener has been handed every committed journal entry.
    package func listenerCaughtUp() -> Bool {
        let cursor = (try? store.metadata(Self.listenerCursorKey)).flatMap { $0.flatMap(Int64.init) } ?? 0
        return ((try? store.journal(after: cursor, limit: 1)) ?? []).isEmpty
    }
}
