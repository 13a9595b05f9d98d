import Stepwise
import Synchronization

/// Scripted handler responses in the conformance case format (CONFORMANCE.md, "Handler
/// responses"): `{"<handler>": [<response for call 1>, <call 2>, …]}`; the last response repeats.
///
/// A response is `{"output": <JSON>}`, `{"echo": true}` (returns the resolved params) or
/// `{"fail": "<message>", "retryable": true|false, "code": "<code>"}`, each optionally with
/// `"delay_ms": N` (the call takes that long, in real time here). A whole conformance case file
/// works too: its `handlers` member is used.
struct HandlerScript: Sendable {
    /// Responses by handler name.
    var responses: [String: [JSONValue]]

    /// Reads a script file.
    ///
    /// - Throws: ``CommandFailure`` (exit 2) naming the file and the first malformed response.
    static func load(path: String) throws(CommandFailure) -> HandlerScript {
        let bytes: [UInt8]
        do {
            bytes = try InputFiles.read(path)
        } catch {
            throw CommandFailure(error.message, exitCode: 2)
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw CommandFailure("\(path) is not JSON: \(error)", exitCode: 2)
        }
        return try parse(value, source: path)
    }

    /// Checks a parsed script.
    ///
    /// - Throws: ``CommandFailure`` (exit 2) naming the first malformed response by pointer.
    static func parse(_ value: JSONValue, source: String) throws(CommandFailure) -> HandlerScript {
        var document = value
        if case .array(let cases)? = value["cases"] {
            // A case file: its one case's handlers. Several cases script different runs, and
            // which one is meant cannot be guessed.
            guard cases.count == 1, let only = cases.first else {
                throw CommandFailure(
                    "\(source) holds \(cases.count) conformance cases; --handlers takes a file with one case, or a handler script {\"handler\": [responses…]}",
                    exitCode: 2)
            }
            document = only["handlers"] ?? .object(JSONObject())
        } else if value["sequence"] != nil, let handlers = value["handlers"] {
            document = handlers
        }
        guard case .object(let object) = document else {
            throw CommandFailure(
                "\(source): a handler script is an object {\"handler\": [responses…]}, got \(document.typeName)",
                exitCode: 2)
        }
        var responses: [String: [JSONValue]] = [:]
        for (name, entry) in object {
            let list = entry.arrayValue ?? [entry]
            for (index, response) in list.enumerated() {
                if let problem = problem(in: response) {
                    throw CommandFailure("\(source): /\(name)/\(index): \(problem)", exitCode: 2)
                }
            }
            responses[name] = list
        }
        return HandlerScript(responses: responses)
    }

    private static func problem(in response: JSONValue) -> String? {
        guard case .object(let o) = response else { return "a response is an object, got \(response.typeName)" }
        let kinds = ["output", "echo", "fail"].filter { o.contains($0) }
        if kinds.count != 1 { return "a response has exactly one of output, echo or fail" }
        if let delay = o["delay_ms"], (delay.exactIntegerValue ?? -1) < 0 {
            return "delay_ms is a non-negative integer"
        }
        if let retryable = o["retryable"], retryable.boolValue == nil { return "retryable is true or false" }
        return nil
    }
}

/// How many times each handler was called (shared by every engine a command opens).
final class HandlerCallLog: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// Records a call and returns its 0-based index for `handler`.
    func record(_ handler: String) -> Int {
        counts.withLock { counts in
            let index = counts[handler, default: 0]
            counts[handler] = index + 1
            return index
        }
    }

    /// Calls of `handler` so far.
    func count(of handler: String) -> Int { counts.withLock { $0[handler, default: 0] } }
}

/// Notes handlers leave for the timeline ("what the handler would do"), keyed by the attempt's
/// idempotency key, so they print under the step's line in commit order.
final class HandlerNotes: Sendable {
    private let notes = Mutex<[String: [String]]>([:])

    /// Adds a note for the attempt with `idempotencyKey`.
    func add(_ note: String, for idempotencyKey: String) {
        notes.withLock { $0[idempotencyKey, default: []].append(note) }
    }

    /// Removes and returns the notes of an attempt.
    func take(for idempotencyKey: String) -> [String] {
        notes.withLock { $0.removeValue(forKey: idempotencyKey) ?? [] }
    }
}

/// Replays a handler's scripted responses, call by call.
struct ScriptedResponseHandler: StepHandler {
    let name: String
    let responses: [JSONValue]
    let calls: HandlerCallLog

    func execute(_ context: StepContext) async throws -> JSONValue {
        let index = calls.record(name)
        guard !responses.isEmpty else { return .object(JSONObject()) }
        let response = responses[min(index, responses.count - 1)]
        if let delay = response["delay_ms"]?.exactIntegerValue, delay > 0 {
            try await Task.sleep(for: .milliseconds(delay))
        }
        if let message = response["fail"] {
            let text = message.stringValue ?? JSONWriter.string(message)
            let code = response["code"]?.stringValue
            if response["retryable"]?.boolValue == false { throw StepError.permanent(text, code: code) }
            throw StepError.retryable(text, code: code)
        }
        if response["echo"]?.boolValue == true { return context.params }
        return response["output"] ?? .null
    }
}

/// The handler for a name that is neither built in nor scripted: returns `{}`, so any
/// sequence can be tried.
struct PlaceholderHandler: StepHandler {
    let name: String
    let calls: HandlerCallLog

    func execute(_ context: StepContext) async throws -> JSONValue {
        _ = calls.record(name)
        return .object(JSONObject())
    }
}

/// Which handler each name gets when a command runs an engine: the script's, then the command's
/// own (the demo's), then the engine's built-ins (``BuiltinHandlers``: `noop`, `log`, `echo`,
/// `sleep`, `set`, `fail`), and a placeholder returning `{}` for the rest.
struct HandlerSetup: Sendable {
    var script = HandlerScript(responses: [:])
    var custom: [String: any StepHandler] = [:]
    var calls = HandlerCallLog()
    var notes = HandlerNotes()

    /// Registers handlers for `names` (and every scripted or custom one).
    ///
    /// - Returns: the names that got a placeholder, sorted.
    func register(on engine: StepwiseEngine, names: Set<String>) async -> [String] {
        var placeholders: [String] = []
        for name in names.union(script.responses.keys).union(custom.keys).sorted() {
            if let responses = script.responses[name] {
                await engine.registerHandler(
                    name, ScriptedResponseHandler(name: name, responses: responses, calls: calls))
            } else if let handler = custom[name] {
                await engine.registerHandler(name, handler)
            } else if !BuiltinHandlers.names.contains(name) {
                placeholders.append(name)
                await engine.registerHandler(name, PlaceholderHandler(name: name, calls: calls))
            }
        }
        return placeholders
    }

    /// The notice printed when placeholders were registered.
    static func placeholderNotice(_ names: [String]) -> String? {
        guard !names.isEmpty else { return nil }
        let list = names.map { "'\($0)'" }.joined(separator: ", ")
        let noun = names.count == 1 ? "handler \(list) is" : "handlers \(list) are"
        return "note: \(noun) neither built in nor scripted: returning {} (script responses with --handlers FILE)"
    }
}
