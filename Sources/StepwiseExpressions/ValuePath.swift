import StepwiseJSON

/// One pre-parsed segment of a dotted path: the member name, and the array index when the
/// segment is all digits (leading zeros allowed).
struct PathSegment: Sendable, Hashable {
    /// The member name as written.
    let key: String
    /// The array index this segment designates, or `nil` when it is not all digits (or too big).
    let index: Int?

    init(_ key: String) {
        self.key = key
        var value = 0
        var valid = !key.utf8.isEmpty
        for b in key.utf8 {
            guard ValueSemantics.isDigit(b) else {
                valid = false
                break
            }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(b - 0x30))
            if o1 || o2 {
                // A huge index is never in range: keep it out of reach.
                value = Int.max
                break
            }
            value = sum
        }
        index = valid ? value : nil
    }
}

/// A dotted path split once at compile time into its root (SEMANTICS §3.4) and pre-parsed
/// segments, so that evaluation never parses text.
struct ValuePath: Sendable {
    /// Where a path starts.
    enum Root: Sendable, Hashable {
        /// `context.data` (also `data.…`, `input.…` and bare paths).
        case data
        /// `context.config` (also `config.…`).
        case config
        /// The latest outputs by block id (`outputs`, `steps`).
        case outputs
        /// `instance_id`: the instance id, whatever follows.
        case instanceID
        /// `runtime.…`.
        case runtime
        /// A root that never has a value: `context` alone, `context.<other>`, templates' `state`.
        case nothing
    }

    /// The root the first segment(s) picked.
    let root: Root
    /// The segments below the root.
    let segments: [PathSegment]

    init(root: Root, segments: [PathSegment]) {
        self.root = root
        self.segments = segments
    }

    /// Splits a word already checked to be `segment(.segment)*` and picks its root.
    ///
    /// - Parameter allowState: templates accept `state` as a root that is always null.
    /// `text` split on `.` (empty pieces kept), scanning UTF-8 bytes: `String.split` walks
    /// grapheme clusters, which costs far more for the ASCII paths it is used on. A `.` byte is
    /// always a whole character, so the pieces are the same.
    static func dottedWords(_ text: String) -> [Substring] {
        var words: [Substring] = []
        let utf8 = text.utf8
        var start = utf8.startIndex
        var i = start
        while i != utf8.endIndex {
            if utf8[i] == UInt8(ascii: ".") {
                words.append(text[start..<i])
                start = utf8.index(after: i)
            }
            i = utf8.index(after: i)
        }
        words.append(text[start..<utf8.endIndex])
        return words
    }

    init(words: [Substring], allowState: Bool = false) {
        let first = words.first.map(String.init) ?? ""
        let rest = words.dropFirst()
        switch first {
        case "context":
            if let second = rest.first, second == "data" {
                self.init(root: .data, segments: rest.dropFirst().map { PathSegment(String($0)) })
            } else if let second = rest.first, second == "config" {
                self.init(root: .config, segments: rest.dropFirst().map { PathSegment(String($0)) })
            } else {
                self.init(root: .nothing, segments: [])
            }
        case "data":
            self.init(root: .data, segments: rest.map { PathSegment(String($0)) })
        case "config":
            self.init(root: .config, segments: rest.map { PathSegment(String($0)) })
        case "outputs", "steps":
            self.init(root: .outputs, segments: rest.map { PathSegment(String($0)) })
        case "input":
            self.init(root: .data, segments: words.map { PathSegment(String($0)) })
        case "instance_id":
            self.init(root: .instanceID, segments: [])
        case "runtime":
            self.init(root: .runtime, segments: rest.map { PathSegment(String($0)) })
        case "state" where allowState:
            self.init(root: .nothing, segments: [])
        default:
            self.init(root: .data, segments: words.map { PathSegment(String($0)) })
        }
    }

    /// The value the path designates; missing anywhere → `null`. Never fails.
    @inline(__always)
    func resolve(in scope: EvaluationScope) -> JSONValue {
        switch root {
        case .data:
            return Self.navigate(scope.data, segments)
        case .config:
            return Self.navigate(scope.config, segments)
        case .outputs:
            guard let first = segments.first else { return .object(scope.outputs) }
            guard let output = scope.outputs[first.key] else { return .null }
            return Self.navigate(output, segments[1...])
        case .instanceID:
            return .string(scope.runtime.instanceId)
        case .runtime:
            guard let first = segments.first else { return Self.runtimeObject(scope.runtime) }
            guard let field = Self.runtimeField(first.key, scope.runtime) else { return .null }
            return Self.navigate(field, segments[1...])
        case .nothing:
            return .null
        }
    }

    /// Whether every segment exists, even when the value found is `null` (`has()`).
    func exists(in scope: EvaluationScope) -> Bool {
        switch root {
        case .data:
            return Self.exists(scope.data, segments[...])
        case .config:
            return Self.exists(scope.config, segments[...])
        case .outputs:
            guard let first = segments.first else { return true }
            guard let output = scope.outputs[first.key] else { return false }
            return Self.exists(output, segments[1...])
        case .instanceID:
            return true
        case .runtime:
            guard let first = segments.first else { return true }
            guard let field = Self.runtimeField(first.key, scope.runtime) else { return false }
            return Self.exists(field, segments[1...])
        case .nothing:
            return false
        }
    }

    /// The child of `value` named by `segment`: object member, or array element for a digit
    /// segment; `nil` otherwise.
    @inline(__always)
    static func child(of value: JSONValue, _ segment: PathSegment) -> JSONValue? {
        switch value {
        case .object(let o):
            return o[segment.key]
        case .array(let a):
            guard let i = segment.index, i < a.count else { return nil }
            return a[i]
        default:
            return nil
        }
    }

    /// Walks `segments` down from `base`; missing → `null`.
    @inline(__always)
    static func navigate(_ base: JSONValue, _ segments: [PathSegment]) -> JSONValue {
        switch segments.count {
        case 0:
            return base
        case 1:
            return child(of: base, segments[0]) ?? .null
        default:
            guard var current = child(of: base, segments[0]) else { return .null }
            for i in 1..<segments.count {
                guard let next = child(of: current, segments[i]) else { return .null }
                current = next
            }
            return current
        }
    }

    static func navigate(_ base: JSONValue, _ segments: ArraySlice<PathSegment>) -> JSONValue {
        var current = base
        for s in segments {
            guard let next = child(of: current, s) else { return .null }
            current = next
        }
        return current
    }

    static func exists(_ base: JSONValue, _ segments: ArraySlice<PathSegment>) -> Bool {
        var current = base
        for s in segments {
            guard let next = child(of: current, s) else { return false }
            current = next
        }
        return true
    }

    /// The names under `runtime.`.
    static let runtimeFieldNames = [
        "attempt", "instance_id", "sequence_name", "sequence_version", "current_step", "started_at",
        "current_step_started_at", "total_steps_executed", "dry_run",
    ]

    static func runtimeField(_ name: String, _ info: RuntimeInfo) -> JSONValue? {
        switch name {
        case "attempt": return .integer(Int64(info.attempt))
        case "instance_id": return .string(info.instanceId)
        case "sequence_name": return .string(info.sequenceName)
        case "sequence_version": return .integer(Int64(info.sequenceVersion))
        case "current_step": return info.currentStep.map(JSONValue.string) ?? .null
        case "started_at": return info.startedAt.map(JSONValue.string) ?? .null
        case "current_step_started_at": return info.currentStepStartedAt.map(JSONValue.string) ?? .null
        case "total_steps_executed": return .integer(Int64(info.totalStepsExecuted))
        case "dry_run": return .bool(false)
        default: return nil
        }
    }

    static func runtimeObject(_ info: RuntimeInfo) -> JSONValue {
        var object = JSONObject(minimumCapacity: runtimeFieldNames.count)
        for name in runtimeFieldNames {
            object[name] = runtimeField(name, info)
        }
        return .object(object)
    }
}
