public import StepwiseJSON

/// A JSON value whose strings, at any depth, may be templates: step `params` and
/// `sub_sequence.input` (SEMANTICS §4.1). Object keys are never templated.
///
/// ```swift
/// let compiled = TemplatedValue.compile(["to": "{{ data.email }}", "n": 3], at: JSONPointer(tokens: ["params"]))
/// let params = try compiled.value!.resolve(EvaluationScope(data: ["email": "a@b.c"]))
/// // {"to": "a@b.c", "n": 3}
/// ```
public struct TemplatedValue: Sendable {
    indirect enum Node: Sendable {
        case constant(JSONValue)
        case template(Template, JSONPointer)
        case array([Node])
        case object([(key: String, node: Node)])
    }

    /// The value as written.
    public let original: JSONValue
    private let node: Node

    /// Whether the value holds no template: ``resolve(_:)`` returns ``original`` untouched.
    public var isStatic: Bool {
        if case .constant = node { return true }
        return false
    }

    /// Compiles every string containing `{{` in `value`.
    ///
    /// - Parameters:
    ///   - value: the JSON as written.
    ///   - pointer: where `value` sits in the document; problems and warnings point below it.
    /// - Returns: the compiled value (`nil` when there is any problem), every problem (§4.4) and
    ///   every warning (bare-word fallbacks, unclosed `{{`). Never throws.
    public static func compile(_ value: JSONValue, at pointer: JSONPointer)
        -> (value: TemplatedValue?, problems: [LocatedMessage], warnings: [LocatedMessage])
    {
        var problems: [LocatedMessage] = []
        var warnings: [LocatedMessage] = []
        var path = Path(base: pointer)
        let node = build(value, &path, &problems, &warnings)
        guard problems.isEmpty else { return (nil, problems, warnings) }
        return (TemplatedValue(original: value, node: node), [], warnings)
    }

    /// Where the walk is: the tokens below the base pointer, kept on a stack so that a pointer is
    /// only built for a string that is a template (most members are not).
    private struct Path {
        let base: JSONPointer
        var tokens: [String] = []

        init(base: JSONPointer) { self.base = base }

        var pointer: JSONPointer { JSONPointer(tokens: base.tokens + tokens) }
    }

    private static func build(
        _ value: JSONValue, _ path: inout Path, _ problems: inout [LocatedMessage], _ warnings: inout [LocatedMessage]
    ) -> Node {
        switch value {
        case .string(let s):
            guard Template.containsOpening(s) else { return .constant(value) }
            let pointer = path.pointer
            let analysis = Template.analyze(s)
            for e in analysis.errors { problems.append(LocatedMessage(pointer: pointer, message: e.message)) }
            for w in analysis.warnings { warnings.append(LocatedMessage(pointer: pointer, message: w)) }
            guard let template = analysis.template else { return .constant(value) }
            return .template(template, pointer)
        case .array(let elements):
            var nodes: [Node] = []
            nodes.reserveCapacity(elements.count)
            var dynamic = false
            for (i, e) in elements.enumerated() {
                path.tokens.append(String(i))
                let n = build(e, &path, &problems, &warnings)
                path.tokens.removeLast()
                if case .constant = n {} else { dynamic = true }
                nodes.append(n)
            }
            return dynamic ? .array(nodes) : .constant(value)
        case .object(let o):
            var members: [(key: String, node: Node)] = []
            members.reserveCapacity(o.count)
            var dynamic = false
            for (k, v) in o {
                path.tokens.append(k)
                let n = build(v, &path, &problems, &warnings)
                path.tokens.removeLast()
                if case .constant = n {} else { dynamic = true }
                members.append((k, n))
            }
            return dynamic ? .object(members) : .constant(value)
        default:
            return .constant(value)
        }
    }

    /// Resolves every template against `scope`.
    ///
    /// - Returns: the value with templates rendered; ``original`` itself when ``isStatic``.
    /// - Throws: ``TemplateError`` for the first filter that fails at run time, its message
    ///   prefixed with the pointer of the string concerned. Missing paths are not errors.
    public func resolve(_ scope: EvaluationScope) throws(TemplateError) -> JSONValue {
        if case .constant = node { return original }
        return try Self.resolve(node, scope)
    }

    private static func resolve(_ node: Node, _ scope: EvaluationScope) throws(TemplateError) -> JSONValue {
        switch node {
        case .constant(let v):
            return v
        case .template(let t, let pointer):
            do {
                return try t.render(scope)
            } catch {
                throw TemplateError(message: "\(pointer): \(error.message)")
            }
        case .array(let nodes):
            var out: [JSONValue] = []
            out.reserveCapacity(nodes.count)
            for n in nodes { out.append(try resolve(n, scope)) }
            return .array(out)
        case .object(let members):
            var out = JSONObject(minimumCapacity: members.count)
            for m in members { out[m.key] = try resolve(m.node, scope) }
            return .object(out)
        }
    }
}
