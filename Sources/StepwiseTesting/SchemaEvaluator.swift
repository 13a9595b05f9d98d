import StepwiseJSON

/// Evaluates instances against a ``CompiledSchema``. One evaluator serves one `validate` call:
/// it caches compiled regular expressions, which are not `Sendable`.
struct SchemaEvaluator {
    let schema: CompiledSchema
    private var regexes: [Int: Regex<AnyRegexOutput>] = [:]

    init(schema: CompiledSchema) { self.schema = schema }

    mutating func evaluate(_ nodeIndex: Int, _ instance: JSONValue, at pointer: JSONPointer, into sink: inout ViolationSink) {
        let node = schema.nodes[nodeIndex]
        if let constant = node.constant {
            if !constant {
                sink.violations.append(
                    JSONSchemaViolation(
                        instanceLocation: pointer,
                        keyword: "false",
                        schemaLocation: node.location,
                        message: "no value is allowed here"
                    )
                )
            }
            return
        }
        for keyword in node.keywords {
            if sink.isDone { return }
            apply(keyword, instance, at: pointer, into: &sink)
        }
    }

    /// Whether `instance` satisfies node `nodeIndex`, and the first violation when it does not.
    private mutating func probe(_ nodeIndex: Int, _ instance: JSONValue, at pointer: JSONPointer) -> JSONSchemaViolation? {
        var sink = ViolationSink(stopsAtFirst: true)
        evaluate(nodeIndex, instance, at: pointer, into: &sink)
        return sink.violations.first
    }

    private mutating func apply(
        _ keyword: SchemaKeyword,
        _ instance: JSONValue,
        at pointer: JSONPointer,
        into sink: inout ViolationSink
    ) {
        func report(_ message: String, at location: JSONPointer? = nil) {
            sink.violations.append(
                JSONSchemaViolation(
                    instanceLocation: location ?? pointer,
                    keyword: keyword.name,
                    schemaLocation: keyword.location,
                    message: message
                )
            )
        }

        switch keyword.rule {
        case .type(let types):
            if !types.contains(where: { $0.matches(instance) }) {
                let expected = types.map(\.rawValue).joined(separator: " or ")
                report("expected \(expected), got \(SchemaType.name(of: instance))")
            }
        case .enumeration(let values):
            if !values.contains(instance) {
                let list = values.map { SchemaCompiler.render($0) }.joined(separator: ", ")
                report("value \(SchemaCompiler.render(instance)) is not one of: \(list)")
            }
        case .constant(let value):
            if instance != value {
                report("expected \(SchemaCompiler.render(value)), got \(SchemaCompiler.render(instance))")
            }
        case .properties(let named):
            guard case .object(let object) = instance else { return }
            for entry in named {
                if sink.isDone { return }
                if let member = object[entry.name] {
                    evaluate(entry.node, member, at: pointer.appending(entry.name), into: &sink)
                }
            }
        case .patternProperties(let patterns):
            guard case .object(let object) = instance else { return }
            for (key, member) in object {
                for entry in patterns where key.contains(regex(entry.pattern)) {
                    if sink.isDone { return }
                    evaluate(entry.node, member, at: pointer.appending(key), into: &sink)
                }
            }
        case .additionalProperties(let node, let declared, let patterns):
            guard case .object(let object) = instance else { return }
            for (key, member) in object where !declared.contains(key) {
                if patterns.contains(where: { key.contains(regex($0)) }) { continue }
                if sink.isDone { return }
                if schema.nodes[node].constant == false {
                    report("property '\(key)' is not allowed", at: pointer.appending(key))
                } else {
                    evaluate(node, member, at: pointer.appending(key), into: &sink)
                }
            }
        case .propertyNames(let node):
            guard case .object(let object) = instance else { return }
            for key in object.keys {
                if let first = probe(node, .string(key), at: pointer) {
                    report("property name '\(key)' is invalid: \(first.message)", at: pointer.appending(key))
                }
            }
        case .required(let names):
            guard case .object(let object) = instance else { return }
            for name in names where !object.contains(name) {
                report("missing property '\(name)'")
            }
        case .dependentRequired(let pairs):
            guard case .object(let object) = instance else { return }
            for pair in pairs where object.contains(pair.property) {
                for name in pair.requires where !object.contains(name) {
                    report("property '\(pair.property)' requires property '\(name)'")
                }
            }
        case .minProperties(let n):
            if case .object(let object) = instance, object.count < n {
                report("object has \(object.count) properties, fewer than the minimum \(n)")
            }
        case .maxProperties(let n):
            if case .object(let object) = instance, object.count > n {
                report("object has \(object.count) properties, more than the maximum \(n)")
            }
        case .prefixItems(let nodes):
            guard case .array(let items) = instance else { return }
            for (i, node) in nodes.enumerated() where i < items.count {
                if sink.isDone { return }
                evaluate(node, items[i], at: pointer.appending(i), into: &sink)
            }
        case .items(let node, let from):
            guard case .array(let items) = instance, items.count > from else { return }
            for i in from..<items.count {
                if sink.isDone { return }
                evaluate(node, items[i], at: pointer.appending(i), into: &sink)
            }
        case .contains(let node, let minimum, let maximum):
            guard case .array(let items) = instance else { return }
            var matches = 0
            for (i, item) in items.enumerated() where probe(node, item, at: pointer.appending(i)) == nil {
                matches += 1
            }
            if matches < minimum {
                report("\(matches) of \(items.count) items match the contains schema, fewer than the minimum \(minimum)")
            } else if let maximum, matches > maximum {
                report("\(matches) of \(items.count) items match the contains schema, more than the maximum \(maximum)")
            }
        case .minItems(let n):
            if case .array(let items) = instance, items.count < n {
                report("array has \(items.count) items, fewer than the minimum \(n)")
            }
        case .maxItems(let n):
            if case .array(let items) = instance, items.count > n {
                report("array has \(items.count) items, more than the maximum \(n)")
            }
        case .uniqueItems:
            guard case .array(let items) = instance else { return }
            var seen: [JSONValue: Int] = [:]
            for (i, item) in items.enumerated() {
                if let first = seen[item] {
                    report("items \(first) and \(i) are equal; items must be unique")
                    return
                }
                seen[item] = i
            }
        case .minimum(let limit):
            if let order = ExactNumber.compare(instance, limit), order < 0 {
                report("\(SchemaCompiler.render(instance)) is less than the minimum \(SchemaCompiler.render(limit))")
            }
        case .maximum(let limit):
            if let order = ExactNumber.compare(instance, limit), order > 0 {
                report("\(SchemaCompiler.render(instance)) is greater than the maximum \(SchemaCompiler.render(limit))")
            }
        case .exclusiveMinimum(let limit):
            if let order = ExactNumber.compare(instance, limit), order <= 0 {
                report("\(SchemaCompiler.render(instance)) is not greater than the exclusive minimum \(SchemaCompiler.render(limit))")
            }
        case .exclusiveMaximum(let limit):
            if let order = ExactNumber.compare(instance, limit), order >= 0 {
                report("\(SchemaCompiler.render(instance)) is not less than the exclusive maximum \(SchemaCompiler.render(limit))")
            }
        case .minLength(let n):
            if case .string(let text) = instance, text.unicodeScalars.count < n {
                report("string \(SchemaCompiler.render(instance)) is shorter than \(n) characters")
            }
        case .maxLength(let n):
            if case .string(let text) = instance, text.unicodeScalars.count > n {
                report("string \(SchemaCompiler.render(instance)) is longer than \(n) characters")
            }
        case .pattern(let p):
            if case .string(let text) = instance, !text.contains(regex(p)) {
                report("string \(SchemaCompiler.render(instance)) does not match the pattern '\(schema.patterns[p])'")
            }
        case .allOf(let nodes):
            for node in nodes {
                if sink.isDone { return }
                evaluate(node, instance, at: pointer, into: &sink)
            }
        case .anyOf(let nodes):
            var reasons: [String] = []
            for node in nodes {
                guard let failure = probe(node, instance, at: pointer) else { return }
                reasons.append(failure.description)
            }
            report("no alternative matches: " + Self.list(reasons))
        case .oneOf(let nodes):
            var reasons: [String] = []
            var matching: [Int] = []
            for (i, node) in nodes.enumerated() {
                if let failure = probe(node, instance, at: pointer) {
                    reasons.append(failure.description)
                } else {
                    matching.append(i)
                }
            }
            if matching.isEmpty {
                report("no alternative matches: " + Self.list(reasons))
            } else if matching.count > 1 {
                report("alternatives \(matching.map(String.init).joined(separator: ", ")) all match; exactly one must")
            }
        case .not(let node):
            if probe(node, instance, at: pointer) == nil {
                report("value \(SchemaCompiler.render(instance)) is not allowed here (it matches the schema that 'not' excludes)")
            }
        case .conditional(let condition, let thenNode, let elseNode):
            let branch = probe(condition, instance, at: pointer) == nil ? thenNode : elseNode
            if let branch {
                evaluate(branch, instance, at: pointer, into: &sink)
            }
        case .reference(let target, _):
            evaluate(target, instance, at: pointer, into: &sink)
        }
    }

    private mutating func regex(_ index: Int) -> Regex<AnyRegexOutput> {
        if let cached = regexes[index] { return cached }
        // The pattern compiled when the schema was built, so this cannot fail.
        let compiled = (try? Regex(schema.patterns[index]))!.matchingSemantics(.unicodeScalar)
        regexes[index] = compiled
        return compiled
    }

    private static func list(_ reasons: [String]) -> String {
        reasons.enumerated().map { "[\($0.offset)] \($0.element)" }.joined(separator: "; ")
    }
}
