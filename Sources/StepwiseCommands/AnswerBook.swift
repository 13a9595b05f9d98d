import Stepwise

/// Answers for `wait_for_input` steps given ahead of time: `--answer STEP=VALUE` (repeatable)
/// or the demo's script.
///
/// Answers for one step are used in order, one per wait (a step in a loop waits once per
/// iteration); the last accepted one keeps answering later waits. An answer the engine rejects
/// is dropped.
struct AnswerBook: Sendable {
    private var queues: [String: [JSONValue]] = [:]
    /// Where the answers came from, shown with each one used (`--answer`, `the demo script`).
    let source: String

    /// A book with `answers` (step id, value) in order.
    init(source: String, answers: [(step: String, value: JSONValue)] = []) {
        self.source = source
        for answer in answers { queues[answer.step, default: []].append(answer.value) }
    }

    /// Parses `STEP=VALUE` arguments; VALUE is JSON when it parses as JSON, else a string.
    ///
    /// - Throws: ``CommandFailure`` (exit 2) for an argument without `=` or an empty step.
    static func parse(_ arguments: [String], source: String = "--answer") throws(CommandFailure) -> AnswerBook {
        var answers: [(step: String, value: JSONValue)] = []
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                throw CommandFailure("--answer '\(argument)' is not STEP=VALUE", exitCode: 2)
            }
            let step = String(argument[..<equals])
            answers.append((step, answerValue(String(argument[argument.index(after: equals)...]))))
        }
        return AnswerBook(source: source, answers: answers)
    }

    /// The steps answers were given for, sorted.
    var steps: [String] { queues.keys.sorted() }

    /// A warning for each answered step that no step of `sequences` waits on (a misspelt
    /// `--answer`, which would otherwise be ignored without a word), or none when a sequence
    /// runs a sub-sequence not among them (its steps are unknown here).
    func unmatchedWarnings(for sequences: [CompiledSequence]) -> [String] {
        var waiting: [String] = []
        let loaded = Set(sequences.map(\.name))
        var reachesOthers = false
        for sequence in sequences {
            sequence.forEachBlock { block in
                switch block.kind {
                case .step(let step) where step.waitForInput != nil: waiting.append(block.id.rawValue)
                case .subSequence(let sub): if !loaded.contains(sub.sequenceName) { reachesOthers = true }
                default: break
                }
            }
        }
        guard !reachesOthers else { return [] }
        let known = Set(waiting)
        let listed = waiting.isEmpty ? "no step waits for input" : "steps that wait: \(Array(Set(waiting)).sorted().joined(separator: ", "))"
        return steps.filter { !known.contains($0) }.map { "warning: \(source) \($0): no step '\($0)' waits for input (\(listed))" }
    }

    /// The next answer for `step`, if any.
    func next(for step: String) -> JSONValue? { queues[step]?.first }

    /// The engine accepted the next answer for `step`: move on (the last one stays).
    mutating func accepted(_ step: String) {
        if let queue = queues[step], queue.count > 1 { queues[step] = Array(queue.dropFirst()) }
    }

    /// The engine refused the next answer for `step`: drop it.
    mutating func rejected(_ step: String) {
        guard var queue = queues[step], !queue.isEmpty else { return }
        queue.removeFirst()
        queues[step] = queue.isEmpty ? nil : queue
    }
}

/// A value typed on the command line: JSON when it parses as JSON (`true`, `42`, `["a"]`,
/// `"quoted"`), otherwise the text itself as a string (`accepted`).
func answerValue(_ text: String) -> JSONValue {
    (try? JSONParser.parse(text)) ?? .string(text)
}

/// `value` as the answer to a wait with `choices`: choice values are strings, so a typed
/// `1`, `true` or `null` that spells one of them (read as JSON) means that string.
func choiceAdjusted(_ value: JSONValue, choices: [(label: String, value: String)]?) -> JSONValue {
    guard let choices, value.stringValue == nil else { return value }
    let text = JSONWriter.string(value)
    return choices.contains { $0.value == text } ? .string(text) : value
}
