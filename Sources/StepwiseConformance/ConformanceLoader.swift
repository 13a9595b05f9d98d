import Foundation
import StepwiseJSON

/// Finds case files and parses them into cases.
public enum ConformanceLoader {
    /// Every `*.json` file under `paths` (files as given, folders recursively, sorted).
    ///
    /// - Returns: the files, and an error for each path that does not exist.
    public static func files(in paths: [String]) -> (files: [String], missing: [ConformanceInputError]) {
        var files: [String] = []
        var missing: [ConformanceInputError] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                missing.append(ConformanceInputError(file: path, message: "no such file or folder"))
                continue
            }
            if isDirectory.boolValue {
                var found: [String] = []
                if let e = fm.enumerator(atPath: path) {
                    for case let relative as String in e where relative.hasSuffix(".json") {
                        // A folder named *.json is searched by the enumerator, not read as a file.
                        let full = (path as NSString).appendingPathComponent(relative)
                        var isFolder: ObjCBool = false
                        if fm.fileExists(atPath: full, isDirectory: &isFolder), isFolder.boolValue { continue }
                        found.append(full)
                    }
                }
                if found.isEmpty {
                    // A mistyped folder must not pass as "nothing failed".
                    missing.append(ConformanceInputError(file: path, message: "no *.json case file in this folder"))
                }
                files += found.sorted()
            } else {
                files.append(path)
            }
        }
        return (files, missing)
    }

    /// The cases of one file: a case object, or `{"cases": [...]}`.
    ///
    /// - Throws: ``ConformanceInputError`` when the file is unreadable, not JSON, or not a case,
    ///   or when any of its cases is malformed (the first such problem).
    public static func cases(inFile file: String) throws(ConformanceInputError) -> [ConformanceCase] {
        let (cases, problems) = try casesAndProblems(inFile: file)
        if let first = problems.first { throw first }
        return cases
    }

    /// The well-formed cases of one file, and a problem for each malformed case (which does not
    /// keep the others from running).
    ///
    /// - Throws: ``ConformanceInputError`` when the file is unreadable, not JSON, or not a case.
    public static func casesAndProblems(inFile file: String) throws(ConformanceInputError)
        -> (cases: [ConformanceCase], problems: [ConformanceInputError])
    {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConformanceInputError(file: file, message: "cannot read the file")
        }
        let bytes = [UInt8](data)
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes, limits: .init(maxDepth: caseFileMaxDepth))
        } catch {
            // A sequence may be malformed JSON on purpose: a load_error case on §1.1's decoding
            // rules (duplicate keys, a number out of range, a lone surrogate). The engine gets
            // its bytes as written; the rest of the file must still be strict JSON.
            guard let masked = Self.maskingMalformedSequences(bytes),
                let parsed = try? JSONParser.parse(masked, limits: .init(maxDepth: caseFileMaxDepth))
            else {
                throw ConformanceInputError(file: file, message: "not JSON: \(error)")
            }
            document = parsed
        }
        let objects: [JSONValue]
        // Where each case object is in the file, to hand its sequences to the engine as written.
        let whole = JSONSpans.value(in: bytes, from: 0)
        var spans: [Range<Int>?]
        if case .array(let list)? = document["cases"] {
            // A file of no cases checks nothing: unusable, as an empty folder is.
            guard !list.isEmpty else { throw ConformanceInputError(file: file, message: "\"cases\" is empty: a case file holds at least one case") }
            objects = list
            let listSpan = whole.flatMap { JSONSpans.member("cases", in: bytes, of: $0) }
            let elements = listSpan.flatMap { JSONSpans.elements(in: bytes, of: $0) }
            spans = elements?.count == list.count ? elements!.map(Optional.some) : Array(repeating: nil, count: list.count)
        } else if document["expr"] != nil || document["sequence"] != nil {
            objects = [document]
            spans = [whole]
        } else {
            throw ConformanceInputError(file: file, message: "not a case: expected a case object or {\"cases\": [...]}")
        }
        var result: [ConformanceCase] = []
        var problems: [ConformanceInputError] = []
        for (i, object) in objects.enumerated() {
            do {
                result.append(try parseCase(object, file: file, index: i, bytes: bytes, span: spans[i]))
            } catch {
                problems.append(error)
            }
        }
        return (result, problems)
    }

    /// `bytes` with each `sequence` (and `sequences` element) of its cases that is not strict
    /// JSON on its own replaced by `{}` and spaces (offsets unchanged, so the spans of the bytes
    /// as written still apply), or `nil` when there is none to replace.
    package static func maskingMalformedSequences(_ bytes: [UInt8]) -> [UInt8]? {
        guard let whole = JSONSpans.value(in: bytes, from: 0) else { return nil }
        let caseSpans = JSONSpans.member("cases", in: bytes, of: whole).flatMap { JSONSpans.elements(in: bytes, of: $0) } ?? [whole]
        var masked = bytes
        var replaced = false
        for caseSpan in caseSpans {
            var sequenceSpans: [Range<Int>] = []
            if let one = JSONSpans.member("sequence", in: bytes, of: caseSpan) { sequenceSpans.append(one) }
            if let list = JSONSpans.member("sequences", in: bytes, of: caseSpan), let elements = JSONSpans.elements(in: bytes, of: list) {
                sequenceSpans += elements
            }
            for span in sequenceSpans where span.count >= 2 {
                guard (try? JSONParser.parse(Array(bytes[span]), limits: .init(maxDepth: caseFileMaxDepth))) == nil else { continue }
                masked.replaceSubrange(span, with: [UInt8(ascii: "{"), UInt8(ascii: "}")] + Array(repeating: UInt8(ascii: " "), count: span.count - 2))
                replaced = true
            }
        }
        return replaced ? masked : nil
    }

    /// The deepest nesting read in a case file: well past the engine's 256 (SEMANTICS §1.1), so
    /// a case can hold a sequence nested too deeply and expect `too_deep_json` from the load.
    public static let caseFileMaxDepth = 1_024

    static func parseCase(
        _ object: JSONValue, file: String, index: Int, bytes: [UInt8] = [], span: Range<Int>? = nil
    ) throws(ConformanceInputError) -> ConformanceCase {
        // Cases are numbered from 1, as actions and handler responses are.
        guard case .object(let o) = object else {
            throw ConformanceInputError(file: file, message: "case \(index + 1) is not an object")
        }
        guard let nameValue = o["name"] else {
            throw ConformanceInputError(file: file, message: "case \(index + 1) has no 'name'")
        }
        guard case .string(let name) = nameValue else {
            throw ConformanceInputError(file: file, message: "case \(index + 1): name must be a string, got \(nameValue.typeName)")
        }
        // A field of the wrong type would silently test something else than its author meant.
        if let problem = Self.fieldTypeProblem(o) {
            throw ConformanceInputError(file: file, message: "case '\(name)': \(problem)")
        }
        if case .string(let expr)? = o["expr"] {
            var data = o["data"] ?? .object(JSONObject())
            var config: JSONValue = .object(JSONObject())
            if let context = o["context"] {
                data = context["data"] ?? .object(JSONObject())
                config = context["config"] ?? .object(JSONObject())
            }
            var expectedError: String?
            switch o["expect_error"] {
            case .string(let s)?: expectedError = s
            case .bool(true)?: expectedError = ""
            case nil: break
            default:
                throw ConformanceInputError(
                    file: file, message: "case '\(name)': expect_error is a substring or true, got \(JSONWriter.string(o["expect_error"]!))")
            }
            if let truthy = o["expect_truthy"], truthy.boolValue == nil {
                throw ConformanceInputError(
                    file: file, message: "case '\(name)': expect_truthy is true or false, got \(JSONWriter.string(truthy))")
            }
            guard o["expect"] != nil || o["expect_truthy"] != nil || expectedError != nil else {
                throw ConformanceInputError(
                    file: file, message: "case '\(name)' expects nothing: give expect, expect_truthy or expect_error")
            }
            return ConformanceCase(
                file: file, name: name,
                kind: .expression(
                    ExpressionCase(
                        expression: expr, data: data, config: config, outputs: o["outputs"]?.objectValue ?? JSONObject(),
                        expected: o["expect"], expectedTruthy: o["expect_truthy"]?.boolValue, expectedError: expectedError)))
        }
        // A case whose actions, handler responses or expectations do not have the format's shape
        // would test something else than its author meant (or nothing): it is unusable input.
        if let problem = Self.sequenceCaseProblem(o) {
            throw ConformanceInputError(file: file, message: "case '\(name)': \(problem)")
        }
        guard let sequence = o["sequence"] else {
            throw ConformanceInputError(file: file, message: "case '\(name)' has neither 'sequence' nor 'expr'")
        }
        guard case .object(let expect)? = o["expect"] else {
            throw ConformanceInputError(file: file, message: "case '\(name)' has no 'expect' object")
        }
        guard expect["state"] != nil || expect["load_error"] != nil else {
            throw ConformanceInputError(file: file, message: "case '\(name)': expect needs 'state' or 'load_error'")
        }
        var handlers: [String: [JSONValue]] = [:]
        if case .object(let h)? = o["handlers"] {
            for (k, v) in h { handlers[k] = v.arrayValue ?? [v] }
        }
        let extras = o["sequences"]?.arrayValue ?? []
        // The bytes as written where the file locates them, else the re-encoded value.
        let sequenceSpan = span.flatMap { JSONSpans.member("sequence", in: bytes, of: $0) }
        let extraSpans = span.flatMap { JSONSpans.member("sequences", in: bytes, of: $0) }.flatMap { JSONSpans.elements(in: bytes, of: $0) }
        let sequenceBytes = sequenceSpan.map { Array(bytes[$0]) } ?? JSONWriter.bytes(sequence)
        let extraBytes = extraSpans?.count == extras.count ? extraSpans!.map { Array(bytes[$0]) } : extras.map { JSONWriter.bytes($0) }
        return ConformanceCase(
            file: file, name: name,
            kind: .sequence(
                SequenceCase(
                    sequence: sequence, sequenceBytes: sequenceBytes, extraSequences: extras, extraSequenceBytes: extraBytes,
                    instanceID: o["instance_id"]?.stringValue, input: o["input"] ?? .object(JSONObject()),
                    handlers: handlers, actions: o["actions"]?.arrayValue ?? [], expect: expect)))
    }

    /// Why a field of a case has the wrong JSON type, or `nil`: `expr` a string; `context` and
    /// `outputs` (expression cases) objects; `instance_id` a string; `sequences` an array of
    /// objects; each handler's responses not an empty list.
    static func fieldTypeProblem(_ o: JSONObject) -> String? {
        func present(_ key: String) -> JSONValue? {
            guard let value = o[key], value != .null else { return nil }
            return value
        }
        if let expr = present("expr"), expr.stringValue == nil { return "expr must be a string, got \(expr.typeName)" }
        for key in ["context", "outputs"] {
            if let value = present(key), value.objectValue == nil { return "\(key) must be an object, got \(value.typeName)" }
        }
        if let id = present("instance_id"), id.stringValue == nil { return "instance_id must be a string, got \(id.typeName)" }
        if let extras = present("sequences") {
            guard let list = extras.arrayValue else { return "sequences must be an array, got \(extras.typeName)" }
            for (index, element) in list.enumerated() where element.objectValue == nil {
                return "sequences[\(index)] must be an object, got \(element.typeName)"
            }
        }
        if case .object(let handlers)? = present("handlers") {
            for (name, responses) in handlers where responses.arrayValue?.isEmpty == true {
                return "handler '\(name)' has no responses (give at least one, e.g. {\"output\": null})"
            }
        }
        return nil
    }

    /// Why a sequence case's `actions`, `handlers` or `expect` do not have CONFORMANCE.md's shape,
    /// or `nil`.
    static func sequenceCaseProblem(_ o: JSONObject) -> String? {
        if let actions = o["actions"], actions != .null {
            guard let list = actions.arrayValue else { return "actions must be an array, got \(actions.typeName)" }
            for (index, action) in list.enumerated() {
                if let problem = actionProblem(action) { return "action \(index + 1): \(problem)" }
            }
        }
        if let handlers = o["handlers"], handlers != .null {
            guard let byName = handlers.objectValue else { return "handlers must be an object, got \(handlers.typeName)" }
            for (name, responses) in byName {
                for (index, response) in (responses.arrayValue ?? [responses]).enumerated() {
                    if let problem = responseProblem(response) { return "handler '\(name)' response \(index + 1): \(problem)" }
                }
            }
        }
        if case .object(let expect)? = o["expect"] {
            for (key, value) in expect {
                guard expectationKeys.contains(key) else { return "unknown expectation '\(key)'" }
                if let problem = Expectations.shapeProblem(key, value) { return problem }
            }
        }
        return nil
    }

    /// The expectations CONFORMANCE.md defines.
    static let expectationKeys: Set<String> = [
        "state", "waiting_on", "data", "data_absent", "outputs", "outputs_absent", "steps_run", "steps_run_in_order",
        "steps_not_run", "calls", "call_inputs", "error_contains", "load_error",
    ]

    /// Why an action is not one of CONFORMANCE.md's, or `nil`.
    static func actionProblem(_ action: JSONValue) -> String? {
        guard let a = action.objectValue else { return "an action is an object, got \(action.typeName)" }
        let keys = Set(a.keys)
        func string(_ key: String) -> Bool { a[key]?.stringValue != nil }
        func isTrue(_ key: String) -> Bool { a[key] == .bool(true) }
        if keys.contains("on_waiting") {
            guard string("on_waiting") else { return "on_waiting must be a step id" }
            if keys == ["on_waiting", "cancel"] { return isTrue("cancel") ? nil : "cancel must be true" }
            guard keys == ["on_waiting", "complete_step"] || keys == ["on_waiting", "complete_step", "expect_rejected"] else {
                return "on_waiting needs complete_step (an object, with expect_rejected optionally) or cancel: true, got the keys \(keys.sorted().joined(separator: ", "))"
            }
            guard a["complete_step"]?.objectValue != nil else { return "complete_step must be an object" }
            if keys.contains("expect_rejected"), !string("expect_rejected") { return "expect_rejected must be a string" }
            return nil
        }
        if keys.contains("at_ms") {
            guard keys == ["at_ms", "cancel"], isTrue("cancel") else { return "at_ms needs cancel: true (and nothing else)" }
            return (a["at_ms"]?.exactIntegerValue.map { $0 >= 0 } ?? false) ? nil : "at_ms must be an integer ≥ 0"
        }
        if keys.contains("after_step") {
            guard keys == ["after_step", "restart_engine"], string("after_step"), isTrue("restart_engine") else {
                return "after_step needs a step id and restart_engine: true (and nothing else)"
            }
            return nil
        }
        if keys.contains("crash_during") {
            return keys == ["crash_during"] && string("crash_during") ? nil : "crash_during needs a step id (and nothing else)"
        }
        return "unknown action with the keys \(keys.sorted().joined(separator: ", "))"
    }

    /// Why a handler response is not one of CONFORMANCE.md's, or `nil`.
    static func responseProblem(_ response: JSONValue) -> String? {
        guard let r = response.objectValue else { return "a response is an object, got \(response.typeName)" }
        let unknown = Set(r.keys).subtracting(["output", "echo", "fail", "retryable", "code", "delay_ms"])
        if let key = unknown.sorted().first { return "unknown response field '\(key)'" }
        let kinds = ["output", "echo", "fail"].filter { r[$0] != nil }
        guard kinds.count == 1 else { return "a response has exactly one of output, echo and fail" }
        if let echo = r["echo"], echo != .bool(true) { return "echo must be true" }
        if let fail = r["fail"], fail.stringValue == nil { return "fail must be a message" }
        if let retryable = r["retryable"], retryable.boolValue == nil { return "retryable must be true or false" }
        if let code = r["code"], code.stringValue == nil { return "code must be a string" }
        if let delay = r["delay_ms"], !(delay.exactIntegerValue.map { $0 >= 0 } ?? false) { return "delay_ms must be an integer ≥ 0" }
        return nil
    }
}
