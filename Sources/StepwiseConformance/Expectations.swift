import Synchronization
import StepwiseExecution
import StepwiseJSON

/// Checks a sequence case's `expect` against the final snapshot and the recorded calls.
struct Expectations {
    let expect: JSONObject
    let snapshot: InstanceSnapshot
    let recorder: CallRecorder

    /// `nil` when every expectation holds, else each difference on its own clause.
    func check() -> String? {
        var failures: [String] = []
        let recorded = recorder.state.withLock { $0 }
        for (key, expected) in expect {
            // A value of the wrong shape would check nothing: it fails the case instead.
            if let problem = Self.shapeProblem(key, expected) {
                failures.append(problem)
                continue
            }
            switch key {
            case "state":
                if expected.stringValue != snapshot.state.rawValue {
                    var detail = ""
                    if let error = snapshot.error { detail = " (error: \(error.message))" }
                    if !snapshot.waitingReasons.isEmpty { detail += " (\(snapshot.waitingReasons.joined(separator: "; ")))" }
                    failures.append("state is \(snapshot.state.rawValue), expected \(expected.stringValue ?? "?")\(detail)")
                }
            case "waiting_on":
                if let step = expected.stringValue, !snapshot.waits.contains(where: { $0.stepId == step }) {
                    failures.append("not waiting on '\(step)' (open waits: \(snapshot.waits.map(\.stepId)))")
                }
            case "data":
                if let m = DeepSubset.mismatch(expected: expected, actual: .object(snapshot.data), path: "data") {
                    failures.append(m)
                }
            case "data_absent":
                for k in expected.arrayValue ?? [] {
                    if let k = k.stringValue, snapshot.data[k] != nil { failures.append("data.\(k) exists, expected absent") }
                }
            case "outputs":
                for (block, subset) in expected.objectValue ?? JSONObject() {
                    guard let actual = snapshot.outputs[block] else {
                        failures.append("outputs.\(block) is missing")
                        continue
                    }
                    if let m = DeepSubset.mismatch(expected: subset, actual: actual, path: "outputs.\(block)") {
                        failures.append(m)
                    }
                }
            case "outputs_absent":
                for b in expected.arrayValue ?? [] {
                    if let b = b.stringValue, let v = snapshot.outputs[b] {
                        failures.append("outputs.\(b) is \(JSONWriter.string(v)), expected absent")
                    }
                }
            case "steps_run":
                for s in expected.arrayValue ?? [] {
                    if let s = s.stringValue, !recorded.stepsSeen.contains(s) { failures.append("step '\(s)' never ran") }
                }
            case "steps_run_in_order":
                let wanted = (expected.arrayValue ?? []).compactMap(\.stringValue)
                if wanted != recorded.stepsInOrder {
                    failures.append("steps ran in order \(recorded.stepsInOrder), expected \(wanted)")
                }
            case "steps_not_run":
                for s in expected.arrayValue ?? [] {
                    if let s = s.stringValue, recorded.stepsSeen.contains(s) { failures.append("step '\(s)' ran, expected not") }
                }
            case "calls":
                for (handler, count) in expected.objectValue ?? JSONObject() {
                    let actual = recorded.callCounts[handler, default: 0]
                    if JSONValue.integer(Int64(actual)) != count {
                        failures.append("handler '\(handler)' was called \(actual) time\(actual == 1 ? "" : "s"), expected \(JSONWriter.string(count))")
                    }
                }
            case "call_inputs":
                for (handler, inputs) in expected.objectValue ?? JSONObject() {
                    let actual = recorded.callInputs[handler] ?? []
                    if let m = DeepSubset.mismatch(expected: inputs, actual: .array(actual), path: "call_inputs.\(handler)") {
                        failures.append(m)
                    }
                }
            case "error_contains":
                let message = snapshot.error?.message ?? ""
                if let s = expected.stringValue, !s.isEmpty, !message.contains(s) {
                    failures.append("error \"\(message)\" does not contain \"\(s)\"")
                }
            case "load_error":
                break
            default:
                failures.append("unknown expectation '\(key)'")
            }
        }
        return failures.isEmpty ? nil : failures.joined(separator: "; ")
    }

    /// Why an expectation's value does not have the shape CONFORMANCE.md gives it, or `nil`.
    static func shapeProblem(_ key: String, _ value: JSONValue) -> String? {
        func isStringList(_ v: JSONValue) -> Bool { v.arrayValue?.allSatisfy { $0.stringValue != nil } ?? false }
        switch key {
        case "state", "waiting_on", "error_contains", "load_error":
            return value.stringValue == nil ? "expectation '\(key)' must be a string, got \(value.typeName)" : nil
        case "data_absent", "outputs_absent", "steps_run", "steps_run_in_order", "steps_not_run":
            return isStringList(value) ? nil : "expectation '\(key)' must be an array of strings"
        case "outputs":
            return value.objectValue == nil ? "expectation 'outputs' must be an object of block ids, got \(value.typeName)" : nil
        case "calls":
            guard let counts = value.objectValue else { return "expectation 'calls' must be an object, got \(value.typeName)" }
            for (handler, count) in counts where !(count.exactIntegerValue.map { $0 >= 0 } ?? false) {
                return "expectation 'calls.\(handler)' must be a count (an integer ≥ 0), got \(JSONWriter.string(count))"
            }
            return nil
        case "call_inputs":
            guard let inputs = value.objectValue else { return "expectation 'call_inputs' must be an object, got \(value.typeName)" }
            for (handler, list) in inputs where list.arrayValue == nil {
                return "expectation 'call_inputs.\(handler)' must be an array (one entry per call), got \(list.typeName)"
            }
            return nil
        default:
            return nil
        }
    }
}
