import Foundation
import Stepwise

/// Runs the engine and follows one instance to an end: draws its live timeline (and its
/// sub_sequence children's), answers its waits from an ``AnswerBook`` or the terminal, and
/// stops cleanly on Ctrl-C. Shared by `run`, `resume` and `demo`.
///
/// The session polls the engine every 50 ms: `history(of:)` for the timeline, `pendingWaits()`
/// for prompts and `instance(_:)` for the state. Ctrl-C pauses the engine when it comes, not at
/// the next poll, so no new step starts after it.
struct RunSession {
    /// How a session ended.
    enum Outcome {
        /// The instance is terminal (and its hooks finished).
        case finished(InstanceSnapshot)
        /// The instance waits and nothing here can move it on: unanswered waits, or the
        /// reasons in the snapshot.
        case stoppedWaiting(InstanceSnapshot, [PendingStep])
        /// Ctrl-C.
        case interrupted(InstanceSnapshot)
    }

    private enum AnswerResult {
        case answered
        case unavailable
        case interrupted
    }

    let engine: StepwiseEngine
    let root: InstanceID
    let console: RunConsole
    var answers: AnswerBook
    /// Typed answers and Ctrl-C.
    let input: TerminalInput
    /// Whether to ask at the terminal when no answer was given (standard input is a terminal).
    let canAsk: Bool
    let notes: HandlerNotes
    var pollInterval: Duration = .milliseconds(50)
    /// Whether entries committed before the session started are drawn (`run`), or only
    /// summarised by the open waits (`resume`).
    var showsPastEntries = true

    private var renderer: TimelineRenderer?
    private var indents: [InstanceID: String] = [:]
    private var cursors: [InstanceID: Int64] = [:]
    /// Instances whose stored history cannot be read (a damaged journal chunk): their timeline
    /// stops with a warning; the run goes on.
    private var unreadableHistories: Set<InstanceID> = []

    init(
        engine: StepwiseEngine, root: InstanceID, console: RunConsole, answers: AnswerBook, input: TerminalInput,
        canAsk: Bool, notes: HandlerNotes
    ) {
        self.engine = engine
        self.root = root
        self.console = console
        self.answers = answers
        self.input = input
        self.canAsk = canAsk
        self.notes = notes
    }

    /// Resumes the engine and follows the instance until it ends, stops waiting or is
    /// interrupted. The caller shuts the engine down.
    ///
    /// - Throws: ``StepwiseError`` `storage` (or `notFound` when the instance disappears).
    mutating func drive() async throws(StepwiseError) -> Outcome {
        let first = try await engine.instance(root)
        renderer = TimelineRenderer(mode: .live, style: console.style, origin: first.createdAt, notes: notes)
        indents = [root: ""]
        if !showsPastEntries { try await skipPastEntries() }
        await engine.resume()
        input.whenInterrupted { [engine] in Task { await engine.pause() } }
        var settled: Set<String> = []
        var unanswered: [String: PendingStep] = [:]
        while true {
            if input.isInterrupted { return try await stopForInterrupt() }
            try await discoverChildren()
            let waits = try await engine.pendingWaits().filter { indents[$0.instanceId] != nil }
            try await renderNewEntries()
            let snapshot = try await engine.instance(root)
            if snapshot.state.isTerminal && !snapshot.hooksRunning {
                return .finished(try await finalSnapshot())
            }
            for wait in waits where !settled.contains(wait.waitId) {
                switch try await answer(wait) {
                case .answered:
                    settled.insert(wait.waitId)
                case .unavailable:
                    settled.insert(wait.waitId)
                    unanswered[wait.waitId] = wait
                case .interrupted:
                    return try await stopForInterrupt()
                }
            }
            let open = Set(waits.map(\.waitId))
            unanswered = unanswered.filter { open.contains($0.key) }
            if try await isStuck(offered: settled) {
                return .stoppedWaiting(try await finalSnapshot(), unanswered.values.sorted { $0.stepId < $1.stepId })
            }
            console.status(renderer?.runningSummary(now: SystemClock().now()))
            try? await Task.sleep(for: pollInterval)
        }
    }

    /// Feeds the history so far to the renderer without drawing it (durations of attempts in
    /// flight stay right), then draws the waits that are open now.
    private mutating func skipPastEntries() async throws(StepwiseError) {
        try await discoverChildren()
        for id in indents.keys {
            let entries = try await readableHistory(of: id)
            for entry in entries { _ = renderer?.lines(for: entry) }
            if let last = entries.last { cursors[id] = last.sequence }
        }
        for wait in try await engine.pendingWaits() where indents[wait.instanceId] != nil {
            var payload: JSONObject = ["prompt": .string(wait.prompt)]
            payload["choices"] = wait.choices.map {
                .array($0.map { ["label": .string($0.label), "value": .string($0.value)] })
            }
            let entry = JournalEntry(
                instance: wait.instanceId, node: nil, kind: .stepPending, stepID: wait.stepId, attempt: nil,
                at: wait.since ?? SystemClock().now(), payload: .object(payload))
            for line in renderer?.lines(for: entry, indent: indents[wait.instanceId] ?? "") ?? [] { console.line(line) }
        }
    }

    /// Stops dispatching, lets running handlers finish (their results are recorded), then draws
    /// what they did.
    private mutating func stopForInterrupt() async throws(StepwiseError) -> Outcome {
        console.status(nil)
        await engine.pause()
        return .interrupted(try await finalSnapshot())
    }

    /// Renders what is left, then the root's snapshot.
    private mutating func finalSnapshot() async throws(StepwiseError) -> InstanceSnapshot {
        try await discoverChildren()
        try await renderNewEntries()
        console.status(nil)
        return try await engine.instance(root)
    }

    /// Whether the instance waits (or is paused), no instance of its family can move, and every
    /// open wait was already offered to the answer book and the terminal.
    private func isStuck(offered: Set<String>) async throws(StepwiseError) -> Bool {
        let snapshot = try await engine.instance(root)
        let state = snapshot.state
        // An ended instance whose on_failure/on_cancel list waits for input is stuck the same way.
        let hookWaits = state.isTerminal && snapshot.hooksRunning
        guard state == .waiting || state == .paused || hookWaits else { return false }
        for id in indents.keys where id != root {
            let state = try await engine.instance(id).state
            if state == .running || state == .scheduled { return false }
        }
        let waits = try await engine.pendingWaits().filter { indents[$0.instanceId] != nil }
        // Hooks with no open wait are running their steps.
        if hookWaits && waits.isEmpty { return false }
        return waits.allSatisfy { offered.contains($0.waitId) }
    }

    /// Adds sub_sequence children (at any depth) to the followed family.
    private mutating func discoverChildren() async throws(StepwiseError) {
        var frontier = Array(indents.keys)
        while let parent = frontier.popLast() {
            for child in try await engine.childInstances(of: parent) where indents[child] == nil {
                let indent = (indents[parent] ?? "") + "  "
                indents[child] = indent
                frontier.append(child)
                let name = (try? await engine.instance(child).sequenceName) ?? "?"
                console.line("\(String(repeating: " ", count: 13))\(indent)↳ child instance \(child) (\(name))")
            }
        }
    }

    /// Draws journal entries committed since the last call, across the family, in commit order.
    private mutating func renderNewEntries() async throws(StepwiseError) {
        var fresh: [JournalEntry] = []
        for id in indents.keys {
            let cursor = cursors[id] ?? -1
            let entries = try await readableHistory(of: id).filter { $0.sequence > cursor }
            if let last = entries.last { cursors[id] = last.sequence }
            fresh += entries
        }
        let indents = self.indents
        let batch = fresh.sorted { $0.sequence < $1.sequence }
        // Mutate a local copy rather than through optional chaining inside this async mutating
        // method (one crash was traced to the optional-chained call).
        guard var current = renderer else { return }
        let lines = current.lines(for: batch, indent: { indents[$0] ?? "" })
        renderer = current
        for line in lines { console.line(line) }
    }

    /// The history of `id`, or nothing once it cannot be read: a damaged journal is reported
    /// once (the timeline of that instance stops there) and does not stop the run, which only
    /// needs the instance's state and waits.
    private mutating func readableHistory(of id: InstanceID) async throws(StepwiseError) -> [JournalEntry] {
        guard !unreadableHistories.contains(id) else { return [] }
        do {
            return try await engine.history(of: id)
        } catch where error.code == .storage {
            unreadableHistories.insert(id)
            console.error("warning: the timeline of instance \(id) is not shown from here on: \(error.message)")
            return []
        }
    }

    /// Answers one open wait from the book, else at the terminal.
    private mutating func answer(_ wait: PendingStep) async throws(StepwiseError) -> AnswerResult {
        let margin = String(repeating: " ", count: 13) + (indents[wait.instanceId] ?? "")
        while let value = answers.next(for: wait.stepId) {
            console.line(margin + console.style.dim("↳ answer from \(answers.source): ") + JSONWriter.string(value))
            switch try await complete(wait, value: value) {
            case nil:
                answers.accepted(wait.stepId)
                return .answered
            case .some(let message):
                console.error("error: \(message)")
                answers.rejected(wait.stepId)
            }
        }
        guard canAsk else { return .unavailable }
        let range = wait.choices.map { "1-\($0.count), or a value" } ?? "a value (JSON or text)"
        while true {
            console.status(nil)
            console.prompt(margin + console.style.bold("answer for \(wait.stepId)") + " [\(range)]: ")
            switch await input.next() {
            case .interrupted:
                console.line("")
                return .interrupted
            case .endOfInput:
                console.line("")
                return .unavailable
            case .line(let text):
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { continue }
                guard let message = try await complete(wait, value: Self.interpret(trimmed, choices: wait.choices))
                else {
                    return .answered
                }
                console.error("error: \(message)")
            }
        }
    }

    /// Completes the wait; `nil` when accepted, else the engine's reason.
    private func complete(_ wait: PendingStep, value: JSONValue) async throws(StepwiseError) -> String? {
        do {
            try await engine.completeStep(
                instanceId: wait.instanceId, stepId: wait.stepId, output: ["value": choiceAdjusted(value, choices: wait.choices)],
                waitId: wait.waitId)
            return nil
        } catch  where error.code == .invalidInput || error.code == .invalidState || error.code == .notFound {
            return error.message
        }
    }

    /// A typed answer: a choice's value, a choice number, a choice label, or a value (JSON or text).
    static func interpret(_ text: String, choices: [(label: String, value: String)]?) -> JSONValue {
        if let choices {
            if let exact = choices.first(where: { $0.value == text }) { return .string(exact.value) }
            if let number = Int(text), (1...choices.count).contains(number) {
                return .string(choices[number - 1].value)
            }
            if let match = choices.first(where: { $0.label.lowercased() == text.lowercased() }) {
                return .string(match.value)
            }
        }
        return answerValue(text)
    }
}
