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
        try store.commit(batch)
    }

    /// The oldest unsent lifecycle telemetry (SYNC.md §4), read from the journal — recorded in
    /// the same transactions as the transitions, so nothing is invented or lost by a crash.
    /// The buffer holds at most 1000 events: beyond, the oldest are dropped down to 900. Payloads
    /// carry ids, names, attempts, durations and error messages, never data or params.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    public func pendingTelemetry(limit: Int = 500) throws(StepwiseError) -> TelemetryBatch {
        try checkOpen()
        guard configuration.telemetryEnabled else { return TelemetryBatch(events: [], throughSequence: 0, remaining: 0) }
        let stored = (try store.metadata(Self.telemetryCursorKey)).flatMap(Int64.init) ?? 0
        var cursor = stored
        let skipped = try skippedTelemetryRanges()
        // Every pending event counts towards the cap, however far apart in the journal: read
        // it page by page, keeping the newest 1000 (the rest would be dropped anyway).
        var entries: [JournalEntry] = []
        var pending = 0
        var scanned = cursor
        while true {
            let page = try store.journal(after: scanned, limit: 5000)
            guard let last = page.last else { break }
            scanned = last.sequence
            for entry in page where Self.telemetryKinds[entry.kind] != nil && !skipped.contains(where: { $0.contains(entry.sequence) }) {
                entries.append(entry)
                pending += 1
            }
            if entries.count > 2000 { entries.removeFirst(entries.count - 1000) }
        }
        if pending > 1000 {
            // Beyond 1000, the oldest go, down to 900 (the cursor moves to the last dropped).
            let kept = entries.suffix(900)
            cursor = entries[entries.count - 901].sequence
            entries = Array(kept)
            pending = 900
        } else if entries.isEmpty {
            // Nothing to send after the cursor (entries of other kinds, a run with telemetry
            // off): move past them, so later reads start after them.
            cursor = scanned
        }
        if cursor != stored { try storeValues([(Self.telemetryCursorKey, String(cursor))]) }
        var names: [InstanceID: (String, Int, Int64?)] = [:]
        // When each node's latest attempt started, for step durations (an attempt starts and
        // ends in the same batch unless the batch boundary falls between the two).
        var started: [String: Int64] = [:]
        var events: [JSONValue] = []
        for entry in entries.prefix(limit) {
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
        let through = entries.prefix(limit).last?.sequence ?? cursor
        return TelemetryBatch(events: events, throughSequence: through, remaining: max(0, pending - events.count))
    }

    /// Marks telemetry up to `through` as sent.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    public func confirmTelemetry(through: Int64) throws(StepwiseError) {
        // Skipped ranges the cursor has passed are no longer needed.
        let skipped = try skippedTelemetryRanges()
        let kept = skipped.filter { $0.upperBound > through }
        var values = [(Self.telemetryCursorKey, String(through))]
        if kept.count != skipped.count { values.append((Self.telemetrySkippedKey, Self.encode(kept))) }
        try storeValues(values)
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
