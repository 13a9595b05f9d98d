import Stepwise

/// Turns an instance's journal into timeline lines, entry by entry: steps started, succeeded
/// (with duration and output), failed (with attempt, error and whether a retry follows), waits
/// opened (prompt and numbered choices) and answered, and how the instance ended.
///
/// `run` and `resume` feed it entries as they are committed (``Mode/live``); `show` feeds it
/// the whole history at once (``Mode/history``), where start lines are folded into the
/// outcome line and attempts still in flight are listed by ``finish()``.
struct TimelineRenderer {
    enum Mode {
        /// Every event as it happens, starts included.
        case live
        /// One line per finished attempt; attempts in flight at the end.
        case history
    }

    private struct OpenAttempt {
        let stepID: String
        let attempt: Int
        let startedAt: Int64
        let idempotencyKey: String?
        let isEscalation: Bool
    }

    let mode: Mode
    let style: TerminalStyle
    /// Offsets are shown relative to this time (the instance's creation), Unix ms.
    let origin: Int64
    /// Notes handlers left for their attempts ("what they'd do"), printed under the outcome.
    var notes: HandlerNotes?
    /// Width of the output excerpt.
    var outputWidth = 60

    private var open: [String: OpenAttempt] = [:]
    private var waitOpenedAt: [String: Int64] = [:]

    init(mode: Mode, style: TerminalStyle, origin: Int64, notes: HandlerNotes? = nil) {
        self.mode = mode
        self.style = style
        self.origin = origin
        self.notes = notes
    }

    /// The lines for a batch of entries in commit order; in live mode an attempt that starts and
    /// ends within the batch gets only its outcome line.
    ///
    /// - Parameter indent: the prefix of each entry's instance (children are indented).
    mutating func lines(for batch: [JournalEntry], indent: (InstanceID) -> String) -> [String] {
        let finishing = Set(
            batch.filter { $0.kind == .stepSucceeded || $0.kind == .stepFailed }.map(Self.attemptKey(of:)))
        return batch.flatMap { entry in
            let quiet = entry.kind == .stepStarted && finishing.contains(Self.attemptKey(of: entry))
            return lines(for: entry, indent: indent(entry.instance), drawsStart: !quiet)
        }
    }

    /// The lines for one journal entry (often one, none for bookkeeping entries).
    ///
    /// - Parameters:
    ///   - indent: prefix for a child instance's lines.
    ///   - drawsStart: whether a live start line is drawn (it is always recorded).
    mutating func lines(for entry: JournalEntry, indent: String = "", drawsStart: Bool = true) -> [String] {
        let step = entry.stepID ?? "?"
        let attempt = entry.attempt ?? 1
        let attemptKey = Self.attemptKey(of: entry)
        var out: [String] = []
        func add(_ symbol: String, _ stepText: String, _ detail: String) {
            out.append("\(style.dim(offset(entry.at)))  \(indent)\(symbol) \(pad(stepText))  \(detail)")
        }
        switch entry.kind {
        case .stepStarted:
            let escalation = entry.payload["escalation"]?.boolValue == true
            open[attemptKey] = OpenAttempt(
                stepID: step, attempt: attempt, startedAt: entry.at,
                idempotencyKey: entry.payload["idempotency_key"]?.stringValue, isEscalation: escalation)
            guard mode == .live, drawsStart else { break }
            var detail = "started"
            if let handler = entry.payload["handler"]?.stringValue, handler != step { detail += " (\(handler))" }
            if attempt > 1 { detail += ", attempt \(attempt)" }
            if escalation { detail = "escalation handler started" }
            add(style.dim("→"), step, style.dim(detail))
        case .stepSucceeded:
            let started = open.removeValue(forKey: attemptKey)
            var detail = started.map { DurationText.text($0.startedAt, entry.at) } ?? "done"
            if attempt > 1 || mode == .history { detail += ", attempt \(attempt)" }
            if entry.payload["escalation"]?.boolValue == true { detail += ", escalation handler" }
            if let output = entry.payload["output"] { detail += "  → " + excerpt(output, width: outputWidth) }
            add(style.green("✓"), step, detail)
            out += noteLines(started?.idempotencyKey, indent: indent)
        case .stepFailed:
            let started = open.removeValue(forKey: attemptKey)
            var detail = "failed"
            if let started { detail += " after \(DurationText.text(started.startedAt, entry.at))" }
            detail += ", attempt \(attempt): \(entry.payload["error"]?.stringValue ?? "unknown error")"
            if let code = entry.payload["code"]?.stringValue { detail += " [\(code)]" }
            detail += entry.payload["will_retry"]?.boolValue == true ? " — will retry" : ""
            add(style.red("✗"), step, detail)
            out += noteLines(started?.idempotencyKey, indent: indent)
        case .stepPending:
            waitOpenedAt[waitKey(of: entry)] = entry.at
            let prompt = entry.payload["prompt"]?.stringValue ?? ""
            add(style.yellow("⏸"), step, "waits for input" + (prompt.isEmpty ? "" : ": \(prompt)"))
            let margin = String(repeating: " ", count: 9 + 2 + indent.count + 2 + 22 + 2)
            for line in Self.choiceLines(entry.payload["choices"]?.arrayValue ?? []) { out.append(margin + line) }
        case .inputReceived:
            var detail = "answered " + excerpt(entry.payload["value"] ?? .null, width: outputWidth)
            if let opened = waitOpenedAt.removeValue(forKey: waitKey(of: entry)) {
                detail += " (after \(DurationText.text(opened, entry.at)))"
            }
            add(style.green("✓"), step, detail)
        case .stepSkipped:
            add(style.dim("↷"), step, style.dim("skipped (its `when` is false)"))
        case .stepDelegated:
            add(style.yellow("⇄"), step, "waits for the sync server to resolve its credentials:// params")
        case .stepCompleted:
            break  // Same moment as stepSucceeded for steps without a wait.
        case .instanceCompleted:
            out.append(instanceLine(entry, indent, style.green("■ completed")))
        case .instanceFailed:
            out.append(instanceLine(entry, indent, style.red("■ failed: " + (entry.payload["error"]?.stringValue ?? ""))))
        case .instanceCancelled:
            out.append(instanceLine(entry, indent, style.yellow("■ cancelled")))
        case .hookFailed:
            let hook = entry.payload["hook"]?.stringValue ?? "hook"
            let error = entry.payload["error"]?.stringValue ?? ""
            out.append(instanceLine(entry, indent, style.red("! \(hook) failed: \(error)")))
        case .instanceRedriven:
            out.append(instanceLine(entry, indent, "↻ redriven"))
        case .instanceStarted, .manifestApplied:
            break
        }
        return out
    }

    private func instanceLine(_ entry: JournalEntry, _ indent: String, _ text: String) -> String {
        "\(style.dim(offset(entry.at)))  \(indent)\(text)"
    }

    /// Lines for attempts still in flight (history mode), as of `now`.
    func finish(now: Int64, indent: String = "") -> [String] {
        open.values.sorted { $0.startedAt < $1.startedAt }.map { attempt in
            "\(style.dim(offset(attempt.startedAt)))  \(indent)\(style.yellow("…")) \(pad(attempt.stepID))  "
                + "running for \(DurationText.text(attempt.startedAt, now)), attempt \(attempt.attempt)"
                + (attempt.isEscalation ? " (escalation handler)" : "")
        }
    }

    /// What is running now, for the progress line: the oldest attempt in flight.
    func runningSummary(now: Int64) -> String? {
        guard let oldest = open.values.min(by: { $0.startedAt < $1.startedAt }) else { return nil }
        let others = open.count > 1 ? " and \(open.count - 1) more" : ""
        return
            "running \(oldest.stepID) (\(DurationText.text(oldest.startedAt, now)))\(others) · Ctrl-C stops, resume continues"
    }

    /// `1) Accept → accepted` lines for a wait's choices.
    static func choiceLines(_ choices: [JSONValue]) -> [String] {
        choices.enumerated().map { index, choice in
            let label = choice["label"]?.stringValue ?? ""
            let value = choice["value"]?.stringValue ?? ""
            return "\(index + 1)) \(label) → \(value)"
        }
    }

    /// Identifies one attempt: instance, node, attempt number, escalation or not.
    static func attemptKey(of entry: JournalEntry) -> String {
        "\(entry.instance):\(entry.node?.rawValue ?? -1):\(entry.attempt ?? 1):\(entry.payload["escalation"]?.boolValue == true)"
    }

    private func waitKey(of entry: JournalEntry) -> String { "\(entry.instance):\(entry.node?.rawValue ?? -1)" }

    private func noteLines(_ idempotencyKey: String?, indent: String) -> [String] {
        guard let idempotencyKey, let notes else { return [] }
        let margin = String(repeating: " ", count: 9 + 2 + indent.count + 2)
        return notes.take(for: idempotencyKey).map { margin + style.dim("↳ " + $0) }
    }

    private func offset(_ at: Int64) -> String {
        let ms = max(0, at - origin)
        let text = "+\(ms / 1000).\(String(ms % 1000).leftPadded(to: 3, with: "0"))s"
        return text.leftPadded(to: 9)
    }

    private func pad(_ step: String) -> String {
        step.count >= 22 ? step : step + String(repeating: " ", count: 22 - step.count)
    }
}

/// Human-readable durations.
enum DurationText {
    /// The time from `start` to `end` (Unix ms): `12 ms`, `1.4 s`, `3 min 5 s`, `2 h 10 min`.
    static func text(_ start: Int64, _ end: Int64) -> String { text(milliseconds: max(0, end - start)) }

    /// A duration in milliseconds as text.
    static func text(milliseconds ms: Int64) -> String {
        switch ms {
        case ..<1000: return "\(ms) ms"
        case ..<60_000: return "\(ms / 1000).\((ms % 1000) / 100) s"
        case ..<3_600_000: return "\(ms / 60_000) min \((ms % 60_000) / 1000) s"
        default: return "\(ms / 3_600_000) h \((ms % 3_600_000) / 60_000) min"
        }
    }
}

/// Compact JSON of `value`, cut to `width` characters with an ellipsis.
func excerpt(_ value: JSONValue, width: Int) -> String {
    let text = JSONWriter.string(value)
    guard text.count > width else { return text }
    return String(text.prefix(max(1, width - 1))) + "…"
}

extension String {
    /// The string padded on the left to `width` characters.
    func leftPadded(to width: Int, with pad: Character = " ") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
