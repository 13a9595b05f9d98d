public import StepwiseJSON

/// Telemetry events waiting to be sent, and the journal position they reach.
public struct TelemetryBatch: Sendable {
    /// `{event_type, payload, timestamp}` objects, oldest first (SYNC.md §4).
    public let events: [JSONValue]
    /// Pass to ``StepwiseEngine/confirmTelemetry(through:)`` after a 2xx.
    public let throughSequence: Int64
    /// Events left after this batch.
    public let remaining: Int
}

extension StepwiseEngine {
    static let telemetryCursorKey = "telemetry.cursor"
    /// How many of the oldest events after the cursor the buffer dropped (see
    /// ``cuttingTelemetry(in:)``).
    static let telemetryDroppedKey = "telemetry.dropped"
    /// The first journal sequence number of a run with `telemetryEnabled` off (until a run with
    /// it on turns it into a skipped range).
    static let telemetryOffSinceKey = "telemetry.off_since"
    /// Journal ranges recorded with telemetry off, never sent: a JSON array of `[from, through]`.
    static let telemetrySkippedKey = "telemetry.skipped"
    static let telemetryKinds: [JournalEntry.Kind: String] = [
        .instanceStarted: "instance_started", .instanceCompleted: "instance_completed",
        .instanceFailed: "instance_failed", .instanceCancelled: "instance_cancelled", .stepStarted: "step_started",
        .stepCompleted: "step_completed", .inputReceived: "step_completed", .stepFailed: "step_failed",
        .manifestApplied: "manifest_applied",
    ]

    /// Records a `manifest_applied` telemetry event (SYNC.md §4) in the journal, so it is buffered
    /// and flushed like the lifecycle events.
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`.
    package func recordManifestApplied(_ payload: JSONObject) throws(StepwiseError) {
        try checkOpen()
        guard configuration.telemetryEnabled else { return }
        var batch = StoreBatch()
        batch.now = clock.now()
        batch.journal = [
            JournalEntry(
                instance: .engine, node: nil, kind: .manifestApplied, stepID: nil, attempt: nil, at: batch.now,
                payload: .object(payload))
        ]
        let buffer = cuttingTelemetry(in: &batch)
        try store.commit(batch)
        telemetryBuffer = buffer
    }

    /// The oldest unsent lifecycle telemetry (SYNC.md §4), read from the journal — recorded in
    /// the same transactions as the transitions, so nothing is invented or lost by a crash.
    /// The buffer holds at most 1000 events: when a new one takes it over, the oldest are
    /// dropped down to 900. Payloads carry ids, names, attempts, durations and error messages,
    /// never data or params.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    public func pendingTelemetry(limit: Int = 500) throws(StepwiseError) -> TelemetryBatch {
        try checkOpen()
        guard configuration.telemetryEnabled else { return TelemetryBatch(events: [], throughSequence: 0, remaining: 0) }
        let buffer = try currentTelemetryBuffer()
        // A buffer over the cap (left by a version that cut it only when read) is cut as
        // writing its events would have.
        let dropped = buffer.dropped + buffer.count - Self.telemetryKept(buffer.count)
        let stored = try telemetryCursor()
        var cursor = stored
        var passed = 0
        var entries: [JournalEntry] = []
        var pending = 0
        let scanned = try forEachPendingTelemetry(after: stored) { entry in
            if passed < dropped {
                passed += 1
                cursor = entry.sequence
            } else {
                pending += 1
                if entries.count < limit { entries.append(entry) }
            }
            return true
        }
        // The cursor passes the dropped events; with nothing left after it, also the entries of
        // other kinds and of runs with telemetry off, so later reads start after them.
        if pending == 0 { cursor = scanned }
        var values: [(String, String)] = []
        if cursor != stored { values.append((Self.telemetryCursorKey, String(cursor))) }
        if buffer.dropped != 0 { values.append((Self.telemetryDroppedKey, "0")) }
        if !values.isEmpty { try storeValues(values) }
        telemetryBuffer = TelemetryBuffer(count: pending, dropped: 0)
        var names: [InstanceID: (String, Int, Int64?)] = [:]
        // When each node's latest attempt started, for step durations (an attempt starts and
        // ends in the same batch unless the batch boundary falls between the two).
        var started: [String: Int64] = [:]
        var events: [JSONValue] = []
        for entry in entries {
            if entry.kind == .manifestApplied {
                events.append([
                    "event_type": "manifest_applied", "payload": .string(JSONWriter.string(entry.payload)),
                    "timestamp": .string(Timestamp.rfc3339(entry.at)),
                ])
                continue
            }
            if names[entry.instance] == nil {
                var record = live[entry.instance]?.record
                if record == nil { record = try store.loadInstance(entry.instance)?.0 }
                names[entry.instance] = record.map { ($0.sequence.name, $0.sequence.version, $0.createdAt) } ?? ("", 0, nil)
            }
            var payload: JSONObject = [
                "instance_id": .string(entry.instance.rawValue), "sequence_name": .string(names[entry.instance]?.0 ?? ""),
                "sequence_version": .integer(Int64(names[entry.instance]?.1 ?? 0)),
            ]
            if let step = entry.stepID { payload["step_id"] = .string(step) }
            if let attempt = entry.attempt { payload["attempt"] = .integer(Int64(attempt)) }
            if let error = entry.payload["error"]?.stringValue { payload["error"] = .string(error) }
            // duration_ms: of the attempt for a step's end, of the instance for its end.
            let nodeKey = "\(entry.instance.rawValue):\(entry.node?.rawValue ?? -1)"
            switch entry.kind {
            case .stepStarted:
                started[nodeKey] = entry.at
            case .stepCompleted, .inputReceived, .stepFailed:
                if let start = started[nodeKey] { payload["duration_ms"] = .integer(entry.at - start) }
            case .instanceCompleted, .instanceFailed, .instanceCancelled:
                if let created = names[entry.instance]?.2 { payload["duration_ms"] = .integer(entry.at - created) }
            default:
                break
            }
            events.append([
                "event_type": .string(Self.telemetryKinds[entry.kind] ?? ""), "payload": .string(JSONWriter.string(.object(payload))),
                "timestamp": .string(Timestamp.rfc3339(entry.at)),
            ])
        }
        let through = entries.last?.sequence ?? cursor
        return TelemetryBatch(events: events, throughSequence: through, remaining: max(0, pending - events.count))
    }

    /// Marks telemetry up to `through` as sent.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    public func confirmTelemetry(through: Int64) throws(StepwiseError) {
        let stored = try telemetryCursor()
        let dropped = (try store.metadata(Self.telemetryDroppedKey)).flatMap(Int.init) ?? 0
        // Events written while the batch was out may have dropped some of it (the oldest) or,
        // when many, moved the cursor past it: those are not counted twice, and the cursor
        // never moves back.
        var sent = 0
        if through > stored {
            _ = try forEachPendingTelemetry(after: stored) { entry in
                guard entry.sequence <= through else { return false }
                sent += 1
                return true
            }
        }
        let cursor = max(stored, through)
        let stillDropped = max(0, dropped - sent)
        // Skipped ranges the cursor has passed are no longer needed.
        let skipped = try skippedTelemetryRanges()
        let kept = skipped.filter { $0.upperBound > cursor }
        var values = [(Self.telemetryCursorKey, String(cursor)), (Self.telemetryDroppedKey, String(stillDropped))]
        if kept.count != skipped.count { values.append((Self.telemetrySkippedKey, Self.encode(kept))) }
        try storeValues(values)
        if var buffer = telemetryBuffer {
            buffer.count -= max(0, sent - dropped)
            buffer.dropped = stillDropped
            telemetryBuffer = buffer
        }
    }

    /// The telemetry buffer as committed: how many events it holds, and how many of the oldest
    /// events after the cursor it dropped without the cursor being moved past them yet.
    struct TelemetryBuffer: Sendable {
        var count: Int
        var dropped: Int
    }

    /// The most events the telemetry buffer holds (SYNC.md §4).
    static let telemetryCapacity = 1000
    /// What a buffer taken over ``telemetryCapacity`` is cut down to.
    static let telemetryTrimmedSize = 900

    /// How many of `count` events a buffer keeps when they arrive one by one and each one that
    /// takes it over the capacity drops the oldest down to the trimmed size: the result does
    /// not depend on how the events were grouped into commits.
    static func telemetryKept(_ count: Int) -> Int {
        guard count > telemetryCapacity else { return count }
        return telemetryTrimmedSize + (count - telemetryCapacity - 1) % (telemetryCapacity + 1 - telemetryTrimmedSize)
    }

    /// Cuts the telemetry buffer when the events `batch` journals take it over the capacity
    /// (SYNC.md §4), recording the cut in `batch` so it commits with the events that made it.
    /// Call just before committing `batch`, and once it committed make the result
    /// ``telemetryBuffer`` (`nil`: unknown, counted again when needed).
    func cuttingTelemetry(in batch: inout StoreBatch) -> TelemetryBuffer? {
        guard configuration.telemetryEnabled else { return nil }
        let added = batch.journal.count(where: { Self.telemetryKinds[$0.kind] != nil })
        let collects = !batch.deletedInstances.isEmpty
        guard added > 0 || collects else { return telemetryBuffer }
        guard var buffer = try? currentTelemetryBuffer() else { return nil }
        let committedDropped = buffer.dropped
        let total = buffer.count + added
        buffer.count = Self.telemetryKept(total)
        buffer.dropped += total - buffer.count
        // Dropped events are counted, so a write reads no journal; the cursor passes them once
        // they are many (a later count reads less), and before GC deletes some of them (the
        // count would then name newer ones).
        if buffer.dropped >= Self.telemetryCapacity || (collects && buffer.dropped > 0),
            let cursor = try? telemetryCursor(), let last = try? sequence(ofPendingTelemetry: buffer.dropped, after: cursor)
        {
            batch.metadata.append((Self.telemetryCursorKey, String(last)))
            buffer.dropped = 0
        }
        if buffer.dropped != committedDropped { batch.metadata.append((Self.telemetryDroppedKey, String(buffer.dropped))) }
        // GC may delete buffered events with their instances: counted again.
        return collects ? nil : buffer
    }

    /// ``telemetryBuffer``, counted from the store when unknown.
    private func currentTelemetryBuffer() throws(StepwiseError) -> TelemetryBuffer {
        if let telemetryBuffer { return telemetryBuffer }
        let dropped = (try store.metadata(Self.telemetryDroppedKey)).flatMap(Int.init) ?? 0
        var pending = 0
        _ = try forEachPendingTelemetry(after: try telemetryCursor()) { _ in
            pending += 1
            return true
        }
        let buffer = TelemetryBuffer(count: max(0, pending - dropped), dropped: dropped)
        telemetryBuffer = buffer
        return buffer
    }

    /// The journal sequence number of the `n`th stored telemetry event after `cursor`, if there
    /// are that many.
    private func sequence(ofPendingTelemetry n: Int, after cursor: Int64) throws(StepwiseError) -> Int64? {
        var seen = 0
        var found: Int64?
        _ = try forEachPendingTelemetry(after: cursor) { entry in
            seen += 1
            guard seen == n else { return true }
            found = entry.sequence
            return false
        }
        return found
    }

    private func telemetryCursor() throws(StepwiseError) -> Int64 {
        (try store.metadata(Self.telemetryCursorKey)).flatMap(Int64.init) ?? 0
    }

    /// Calls `visit` with the telemetry events after `cursor`, oldest first, read page by page
    /// (every one counts, however far apart in the journal), until it returns `false`.
    ///
    /// - Returns: the sequence number of the last journal entry read.
    private func forEachPendingTelemetry(after cursor: Int64, _ visit: (JournalEntry) -> Bool) throws(StepwiseError) -> Int64 {
        let skipped = try skippedTelemetryRanges()
        var scanned = cursor
        while true {
            let page = try store.journal(after: scanned, limit: 5000)
            guard !page.isEmpty else { return scanned }
            for entry in page {
                scanned = entry.sequence
                guard Self.telemetryKinds[entry.kind] != nil, !skipped.contains(where: { $0.contains(entry.sequence) }) else {
                    continue
                }
                if !visit(entry) { return scanned }
            }
        }
    }

    /// Events are recorded only while `telemetryEnabled` (SYNC.md §4), yet they are journal
    /// entries, which history and the listener need whatever the setting: a run with telemetry
    /// off notes where its entries start, and the next run with it on turns that into a range
    /// ``pendingTelemetry(limit:)`` skips. Called once at open, before any entry is written.
    func reconcileTelemetrySetting() {
        guard let offSince = try? store.metadata(Self.telemetryOffSinceKey).flatMap(Int64.init) ?? nil else {
            if !configuration.telemetryEnabled, let last = try? store.lastJournalSequence() {
                pendingBatch.metadata.append((Self.telemetryOffSinceKey, String(last + 1)))
            }
            return
        }
        guard configuration.telemetryEnabled, let last = try? store.lastJournalSequence(),
            let skipped = try? skippedTelemetryRanges()
        else { return }
        var ranges = skipped
        if last >= offSince { ranges.append(offSince...last) }
        pendingBatch.metadata.append((Self.telemetrySkippedKey, Self.encode(ranges)))
        pendingBatch.metadata.append((Self.telemetryOffSinceKey, ""))
    }

    func skippedTelemetryRanges() throws(StepwiseError) -> [ClosedRange<Int64>] {
        guard let text = try store.metadata(Self.telemetrySkippedKey), !text.isEmpty,
            case .array(let items)? = try? JSONParser.parse(text)
        else { return [] }
        return items.compactMap { item in
            guard let from = item[0]?.exactIntegerValue, let through = item[1]?.exactIntegerValue, from <= through else { return nil }
            return from...through
        }
    }

    private static func encode(_ ranges: [ClosedRange<Int64>]) -> String {
        JSONWriter.string(.array(ranges.map { .array([.integer($0.lowerBound), .integer($0.upperBound)]) }))
    }
}
