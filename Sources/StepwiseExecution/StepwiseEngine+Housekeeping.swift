import StepwiseJSON
import StepwiseSequences

extension StepwiseEngine {
    static let housekeepingIntervalMs: Int64 = 60_000

    /// `maxInstanceLifetimeSecs` in ms, saturated: a lifetime past `Int64` milliseconds (a host
    /// meaning "forever") never expires instead of trapping.
    static func lifetimeMs(_ seconds: UInt64) -> Int64 {
        seconds > UInt64(Int64.max / 1000) ? .max : Int64(seconds) * 1000
    }

    /// GC and lifetime (SEMANTICS §2.16): at the first pass, then at most once a minute.
    /// Terminal root instances finished more than `maxInstanceLifetimeSecs` ago are deleted
    /// (except failed ones with an unacknowledged dead letter); non-terminal instances (children
    /// included) created (or redriven) longer ago fail with `lifetime exceeded`.
    func housekeepingIfDue(now: Int64) {
        if let last = lastHousekeeping, now - last < Self.housekeepingIntervalMs { return }
        // The first housekeeping of this engine comes before it writes any journal entry.
        if lastHousekeeping == nil { reconcileTelemetrySetting() }
        lastHousekeeping = now
        let lifetime = Self.lifetimeMs(configuration.maxInstanceLifetimeSecs)
        // Every instance, children too (one can outlive its parent on protected work), parents
        // first: a parent failing cancels its children, and one that ends at once is not also
        // failed; one still running protected work fails on its own lifetime.
        let aged = live.values.filter { !$0.record.state.isTerminal && now.saturatingMinus($0.record.lifetimeStartedAt) > lifetime }
        for runtime in aged.sorted(by: { ($0.record.depth, $0.id) < ($1.record.depth, $1.id) }) {
            guard let current = live[runtime.id], !current.record.state.isTerminal else { continue }
            transitionIgnoringErrors(runtime.id) { $0.failInstance("lifetime exceeded") }
        }
        if let expired = try? store.expiredInstances(finishedBefore: collectionCutoff(now: now, lifetime: lifetime), limit: 500),
            !expired.isEmpty
        {
            var doomed: [InstanceID] = []
            for id in expired where live[id] == nil {
                // Collected with its descendants once all of them finished: a child still
                // running protected work keeps its finished ancestors (and their history).
                let descendants = storedDescendants(of: id)
                if descendants.contains(where: { live[$0] != nil }) { continue }
                doomed.append(id)
                doomed.append(contentsOf: descendants)
            }
            pendingBatch.deletedInstances.append(contentsOf: doomed)
        }
        collectRetiredVersions()
        retryWaitingFollowUps()
        // Command markers are kept 30 days, pruned at most daily (SYNC.md §2.6).
        if lastMarkerPrune.map({ now - $0 >= Self.markerPruneIntervalMs }) ?? true {
            lastMarkerPrune = now
            pendingBatch.pruneCommandMarkersBefore = now - Self.markerRetentionMs
        }
    }

    /// Terminal instances that finished before this time are deleted: `lifetime` ago — unless
    /// the listener has events still to deliver (its cursor is persisted and entries follow it:
    /// the app was killed before delivery, or has not set its listener yet since it opened the
    /// file). Then instances that finished at or after the oldest undelivered event are kept,
    /// for at most one more lifetime, so that "at least once across restarts" holds for them.
    func collectionCutoff(now: Int64, lifetime: Int64) -> Int64 {
        let cutoff = now.saturatingMinus(lifetime)
        guard let text = (try? store.metadata(Self.listenerCursorKey)).flatMap({ $0 }), let cursor = Int64(text),
            let oldest = (try? store.journal(after: cursor, limit: 1))?.first
        else { return cutoff }
        let (twice, overflow) = lifetime.multipliedReportingOverflow(by: 2)
        return max(now.saturatingMinus(overflow ? .max : twice), min(cutoff, oldest.at))
    }

    /// Fails the instances whose stored state cannot run (``damagedInstances``), in the pass
    /// being built: the reason becomes the instance's error, its dead letter's (a root) or its
    /// parent's sub_sequence failure (a child), and `onInstanceFailed`'s. Its rows are kept as
    /// they are otherwise, for inspection and repair. One whose hooks were running (terminal
    /// already) has them marked finished, with a `hook_failed` entry.
    func failDamagedInstances() {
        guard !damagedInstances.isEmpty else { return }
        let now = clock.now()
        for (stored, reason) in damagedInstances where live[stored.id] == nil {
            var record = stored
            // Finished (hooks were running) by its finish time: a damaged `state` cannot say.
            let wasTerminal = record.finishedAt != nil
            record.hooks = .finished
            record.updatedAt = now
            if wasTerminal {
                pendingBatch.instances.append(record)
                pendingJournal.append(
                    JournalEntry(instance: record.id, node: nil, kind: .hookFailed, stepID: nil, attempt: nil, at: now,
                        payload: ["error": .string(reason)]))
                continue
            }
            let error = InstanceError(message: reason)
            record.state = .failed
            record.error = error
            record.finishedAt = now
            pendingBatch.instances.append(record)
            pendingJournal.append(
                JournalEntry(instance: record.id, node: nil, kind: .instanceFailed, stepID: nil, attempt: nil, at: now,
                    payload: ["error": .string(reason)]))
            if let parent = record.parentInstance, let parentNode = record.parentNode {
                if live[parent] != nil {
                    transitionIgnoringErrors(parent) {
                        $0.childInstanceFinished(parentNode, state: .failed, data: record.data, error: error)
                    }
                }
            } else {
                queueDeadLetter(for: record, error: error, handler: nil, attempts: 0)
            }
        }
        damagedInstances = []
    }

    /// Every sub_sequence instance below `root`, at any depth (they go with their root). A
    /// page that cannot be read ends that branch: the rest is found at the next GC.
    func storedDescendants(of root: InstanceID) -> [InstanceID] {
        var found: [InstanceID] = []
        var parents = [root]
        while let parent = parents.popLast() {
            var cursor: InstanceCursor?
            repeat {
                guard let page = try? store.instances(matching: InstanceFilter(parent: parent), limit: 500, after: cursor)
                else { break }
                found.append(contentsOf: page.map(\.id))
                parents.append(contentsOf: page.map(\.id))
                cursor = page.count == 500 ? page.last.map { InstanceCursor(updatedAt: $0.updatedAt, id: $0.id) } : nil
            } while cursor != nil
        }
        return found
    }

    /// How long a command marker is kept (30 days).
    static let markerRetentionMs: Int64 = 30 * 86_400_000
    /// How often markers are pruned at most (a day).
    static let markerPruneIntervalMs: Int64 = 86_400_000

    /// Bytes of accounted memory (SEMANTICS §2.16): serialized `context.data` and latest outputs
    /// of live instances, compiled sequences, and the params of handler calls in flight (their
    /// data snapshot is the instance's data, counted once).
    func accountedMemoryBytes() -> Int {
        live.values.filter { !$0.record.state.isTerminal }.reduce(0) { total, runtime in
            total + (JSONWriter.byteCount(.object(runtime.record.data)) ?? 0)
                + (JSONWriter.byteCount(.object(runtime.record.outputs)) ?? 0)
        } + programs.values.reduce(0) { $0 + $1.sequence.sourceBytes.count } + inFlightPayloadBytes()
    }

    /// Serialized params of the calls in flight.
    private func inFlightPayloadBytes() -> Int {
        inFlight.keys.reduce(0) { total, key in
            guard let runtime = live[key.instance], key.node.rawValue < runtime.allNodes.count,
                let params = runtime[key.node].progress.params
            else { return total }
            return total + (JSONWriter.byteCount(params) ?? 0)
        }
    }
}
