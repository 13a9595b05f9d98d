import StepwiseJSON

/// Turns schema documents into a ``CompiledSchema``, refusing every keyword it does not implement.
///
/// Documents are added one by one; ``finish()`` then resolves `$ref`s across all of them and
/// rejects cycles of in-place applicators.
struct SchemaCompiler {
    /// The only dialect accepted in `$schema`.
    static let dialect = "https://json-schema.org/draft/2020-12/schema"

    private(set) var schema = CompiledSchema(nodes: [], patterns: [], locations: [:])
    private var documentIDs: Set<String> = []
    private var pendingReferences: [(node: Int, keyword: Int, base: String, reference: String)] = []

    /// Compiles one schema document and returns its root node.
    ///
    /// A document without `$id` gets `urn:stepwise-testing:schema:<n>`; its `$ref`s may then only be
    /// local (`#/...`).
    mutating func addDocument(_ document: JSONValue) throws(JSONSchemaError) -> Int {
        var id = "urn:stepwise-testing:schema:\(documentIDs.count)"
        if let idValue = document["$id"] {
            guard case .string(let text) = idValue, Self.hasScheme(text) else {
                throw JSONSchemaError(
                    code: .invalidKeywordValue,
                    message: "a document $id must be an absolute URI, got \(Self.render(idValue))",
                    context: "#"
                )
            }
            id = text.hasSuffix("#") ? String(text.dropLast()) : text
            guard !id.contains("#") else {
                throw JSONSchemaError(
                    code: .invalidKeywordValue,
                    message: "a document $id must not have a fragment, got '\(text)'",
                    context: "#"
                )
            }
        }
        guard documentIDs.insert(id).inserted else {
            throw JSONSchemaError(
                code: .duplicateSchemaID,
                message: "two schema documents have the $id '\(id)'",
                context: id + "#"
            )
        }
        return try compile(document, document: id, at: .root)
    }

    /// Resolves every `$ref` and checks for reference cycles.
    mutating func finish() throws(JSONSchemaError) -> CompiledSchema {
        for pending in pendingReferences {
            let context = schema.nodes[pending.node].keywords[pending.keyword].location
            guard let key = Self.resolve(pending.reference, against: pending.base) else {
                throw JSONSchemaError(
                    code: .unresolvedReference,
                    message: "cannot resolve $ref '\(pending.reference)' against '\(pending.base)' "
                        + "(supported: '#/json/pointer', a relative or absolute document URI, optionally with '#/pointer')",
                    context: context
                )
            }
            guard let target = schema.locations[key] else {
                throw JSONSchemaError(
                    code: .unresolvedReference,
                    message: "$ref '\(pending.reference)' (\(key)) names no subschema of a known document",
                    context: context
                )
            }
            schema.nodes[pending.node].keywords[pending.keyword].rule = .reference(
                target: target,
                uri: pending.reference
            )
        }
        pendingReferences = []
        try checkForCycles()
        return schema
    }

    // MARK: - Nodes

    private mutating func compile(
        _ value: JSONValue,
        document: String,
        at pointer: JSONPointer
    ) throws(JSONSchemaError) -> Int {
        let location = document + "#" + pointer.description
        let index = schema.nodes.count
        schema.nodes.append(SchemaNode(location: location, constant: nil, keywords: []))
        schema.locations[location] = index

        let object: JSONObject
        switch value {
        case .bool(let b):
            schema.nodes[index].constant = b
            return index
        case .object(let o):
            object = o
        default:
            throw JSONSchemaError(
                code: .invalidKeywordValue,
                message: "a schema must be an object or a boolean, got \(value.typeName)",
                context: location
            )
        }

        var keywords: [SchemaKeyword] = []
        var additionalNode: Int?
        var itemsNode: Int?
        var containsNode: Int?
        var thenNode: Int?
        var elseNode: Int?
        var ifNode: Int?
        var patternIndices: [Int] = []

        for (key, member) in object {
            let here = pointer.appending(key)
            let keywordLocation = document + "#" + here.description
            func fail(_ message: String) -> JSONSchemaError {
                JSONSchemaError(code: .invalidKeywordValue, message: "\(key): \(message)", context: keywordLocation)
            }
            func add(_ rule: SchemaRule) {
                keywords.append(SchemaKeyword(name: key, location: keywordLocation, rule: rule))
            }
            switch key {
            case "$schema":
                guard pointer.tokens.isEmpty, member.stringValue == Self.dialect else {
                    throw fail("only '\(Self.dialect)' at a document root is supported, got \(Self.render(member))")
                }
            case "$id":
                guard pointer.tokens.isEmpty else {
                    throw JSONSchemaError(
                        code: .unknownKeyword,
                        message: "$id is supported only at a document root",
                        context: keywordLocation
                    )
                }
            case "$comment", "title", "description":
                guard member.stringValue != nil else { throw fail("expected a string") }
            case "default":
                break
            case "examples":
                guard member.arrayValue != nil else { throw fail("expected an array") }
            case "deprecated", "readOnly", "writeOnly":
                guard member.boolValue != nil else { throw fail("expected a boolean") }
            case "$defs":
                guard case .object(let defs) = member else { throw fail("expected an object of schemas") }
                for (name, sub) in defs {
                    _ = try compile(sub, document: document, at: here.appending(name))
                }
            case "$ref":
                guard let reference = member.stringValue else { throw fail("expected a string") }
                pendingReferences.append((index, keywords.count, document, reference))
                add(.reference(target: -1, uri: reference))
            case "type":
                add(.type(try Self.types(member, fail)))
            case "enum":
                guard let values = member.arrayValue, !values.isEmpty else { throw fail("expected a non-empty array") }
                add(.enumeration(values))
            case "const":
                add(.constant(member))
            case "properties":
                guard case .object(let properties) = member else { throw fail("expected an object of schemas") }
                var named: [NamedNode] = []
                for (name, sub) in properties {
                    named.append(NamedNode(name: name, node: try compile(sub, document: document, at: here.appending(name))))
                }
                add(.properties(named))
            case "patternProperties":
                guard case .object(let properties) = member else { throw fail("expected an object of schemas") }
                var nodes: [PatternNode] = []
                for (pattern, sub) in properties {
                    let p = try addPattern(pattern, fail)
                    patternIndices.append(p)
                    nodes.append(PatternNode(pattern: p, node: try compile(sub, document: document, at: here.appending(pattern))))
                }
                add(.patternProperties(nodes))
            case "additionalProperties":
                additionalNode = try compile(member, document: document, at: here)
            case "propertyNames":
                add(.propertyNames(try compile(member, document: document, at: here)))
            case "required":
                add(.required(try Self.uniqueStrings(member, fail)))
            case "dependentRequired":
                guard case .object(let dependencies) = member else { throw fail("expected an object") }
                var pairs: [(property: String, requires: [String])] = []
                for (name, list) in dependencies {
                    pairs.append((name, try Self.uniqueStrings(list, fail)))
                }
                add(.dependentRequired(pairs))
            case "minProperties":
                add(.minProperties(try Self.count(member, fail)))
            case "maxProperties":
                add(.maxProperties(try Self.count(member, fail)))
            case "minItems":
                add(.minItems(try Self.count(member, fail)))
            case "maxItems":
                add(.maxItems(try Self.count(member, fail)))
            case "minLength":
                add(.minLength(try Self.count(member, fail)))
            case "maxLength":
                add(.maxLength(try Self.count(member, fail)))
            case "minContains", "maxContains":
                _ = try Self.count(member, fail)  // used with `contains` below
            case "uniqueItems":
                guard let flag = member.boolValue else { throw fail("expected a boolean") }
                if flag { add(.uniqueItems) }
            case "prefixItems":
                guard let list = member.arrayValue, !list.isEmpty else { throw fail("expected a non-empty array of schemas") }
                var nodes: [Int] = []
                for (i, sub) in list.enumerated() {
                    nodes.append(try compile(sub, document: document, at: here.appending(i)))
                }
                add(.prefixItems(nodes))
            case "items":
                guard member.arrayValue == nil else {
                    throw fail("the array form of items is draft 2019-09; use prefixItems")
                }
                itemsNode = try compile(member, document: document, at: here)
            case "contains":
                containsNode = try compile(member, document: document, at: here)
            case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
                guard member.numberValue != nil else { throw fail("expected a number") }
                switch key {
                case "minimum": add(.minimum(member))
                case "maximum": add(.maximum(member))
                case "exclusiveMinimum": add(.exclusiveMinimum(member))
                default: add(.exclusiveMaximum(member))
                }
            case "pattern":
                guard let pattern = member.stringValue else { throw fail("expected a string") }
                add(.pattern(try addPattern(pattern, fail)))
            case "allOf", "anyOf", "oneOf":
                guard let list = member.arrayValue, !list.isEmpty else { throw fail("expected a non-empty array of schemas") }
                var nodes: [Int] = []
                for (i, sub) in list.enumerated() {
                    nodes.append(try compile(sub, document: document, at: here.appending(i)))
                }
                switch key {
                case "allOf": add(.allOf(nodes))
                case "anyOf": add(.anyOf(nodes))
                default: add(.oneOf(nodes))
                }
            case "not":
                add(.not(try compile(member, document: document, at: here)))
            case "if":
                ifNode = try compile(member, document: document, at: here)
            case "then":
                thenNode = try compile(member, document: document, at: here)
            case "else":
                elseNode = try compile(member, document: document, at: here)
            default:
                throw JSONSchemaError(
                    code: .unknownKeyword,
                    message: "keyword '\(key)' is not implemented by this validator; it would go unchecked",
                    context: keywordLocation
                )
            }
        }

        // Keywords that depend on their siblings.
        if let additionalNode {
            let declared = Set(object["properties"]?.objectValue?.keys ?? [])
            keywords.append(
                SchemaKeyword(
                    name: "additionalProperties",
                    location: document + "#" + pointer.appending("additionalProperties").description,
                    rule: .additionalProperties(node: additionalNode, declared: declared, patterns: patternIndices)
                )
            )
        }
        if let itemsNode {
            let prefixCount = object["prefixItems"]?.arrayValue?.count ?? 0
            keywords.append(
                SchemaKeyword(
                    name: "items",
                    location: document + "#" + pointer.appending("items").description,
                    rule: .items(node: itemsNode, from: prefixCount)
                )
            )
        }
        if let containsNode {
            let minimum = object["minContains"]?.exactIntegerValue.map { Int($0) } ?? 1
            let maximum = object["maxContains"]?.exactIntegerValue.map { Int($0) }
            keywords.append(
                SchemaKeyword(
                    name: "contains",
                    location: document + "#" + pointer.appending("contains").description,
                    rule: .contains(node: containsNode, minimum: minimum, maximum: maximum)
                )
            )
        } else if object["minContains"] != nil || object["maxContains"] != nil {
            throw JSONSchemaError(
                code: .invalidKeywordValue,
                message: "minContains/maxContains without contains would go unchecked",
                context: location
            )
        }
        if let ifNode {
            keywords.append(
                SchemaKeyword(
                    name: "if",
                    location: document + "#" + pointer.appending("if").description,
                    rule: .conditional(condition: ifNode, then: thenNode, else: elseNode)
                )
            )
        } else if thenNode != nil || elseNode != nil {
            throw JSONSchemaError(
                code: .invalidKeywordValue,
                message: "then/else without if would go unchecked",
                context: location
            )
        }
        schema.nodes[index].keywords = keywords
        return index
    }

    private mutating func addPattern(
        _ pattern: String,
        _ fail: (String) -> JSONSchemaError
    ) throws(JSONSchemaError) -> Int {
        do {
            _ = try Regex(pattern)
        } catch {
            throw fail("invalid regular expression '\(pattern)': \(error)")
        }
        schema.patterns.append(pattern)
        return schema.patterns.count - 1
    }

    // MARK: - Keyword values

    private static func types(
        _ value: JSONValue,
        _ fail: (String) -> JSONSchemaError
    ) throws(JSONSchemaError) -> [SchemaType] {
        let names: [JSONValue]
        switch value {
        case .string: names = [value]
        case .array(let list) where !list.isEmpty: names = list
        default: throw fail("expected a type name or a non-empty array of type names")
        }
        var result: [SchemaType] = []
        for name in names {
            guard let text = name.stringValue, let type = SchemaType(rawValue: text), !result.contains(type) else {
                throw fail("\(render(name)) is not a type name or is repeated")
            }
            result.append(type)
        }
        return result
    }

    private static func uniqueStrings(
        _ value: JSONValue,
        _ fail: (String) -> JSONSchemaError
    ) throws(JSONSchemaError) -> [String] {
        guard let list = value.arrayValue else { throw fail("expected an array of strings") }
        var result: [String] = []
        for item in list {
            guard let text = item.stringValue, !result.contains(text) else {
                throw fail("expected unique strings, got \(render(item))")
            }
            result.append(text)
        }
        return result
    }

    private static func count(
        _ value: JSONValue,
        _ fail: (String) -> JSONSchemaError
    ) throws(JSONSchemaError) -> Int {
        guard let n = value.exactIntegerValue, n >= 0, n <= Int64(Int32.max) else {
            throw fail("expected a non-negative integer, got \(render(value))")
        }
        return Int(n)
    }

    // MARK: - References

    /// The absolute location `<document>#<pointer>` a reference names, or `nil` when unsupported.
    static func resolve(_ reference: String, against base: String) -> String? {
        let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let uriPart = String(parts[0])
        let fragment = parts.count > 1 ? String(parts[1]) : ""
        let document: String
        if uriPart.isEmpty {
            document = base
        } else if hasScheme(uriPart) {
            document = uriPart
        } else if let authorityEnd = authorityEnd(of: base) {
            if uriPart.hasPrefix("/") {
                document = String(base[..<authorityEnd]) + uriPart
            } else {
                guard let slash = base.lastIndex(of: "/"), slash >= authorityEnd else {
                    return String(base[..<authorityEnd]) + "/" + uriPart
                }
                var relative = Substring(uriPart)
                while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
                guard !relative.hasPrefix("../") else { return nil }
                document = String(base[...slash]) + relative
            }
        } else {
            return nil
        }
        guard let decoded = percentDecoded(fragment), let pointer = JSONPointer(parsing: decoded) else {
            return nil  // plain-name anchors are not supported
        }
        return document + "#" + pointer.description
    }

    /// Whether `text` starts with a URI scheme (`https:`, `urn:`).
    static func hasScheme(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon > text.startIndex else { return false }
        let scheme = text[..<colon].unicodeScalars
        guard let first = scheme.first, first.isASCIILetter else { return false }
        return scheme.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) }
    }

    /// The end of `scheme://authority` in a hierarchical URI, or `nil` for URNs and the like.
    private static func authorityEnd(of uri: String) -> String.Index? {
        guard let range = uri.firstRange(of: "://") else { return nil }
        return uri[range.upperBound...].firstIndex(of: "/") ?? uri.endIndex
    }

    private static func percentDecoded(_ text: String) -> String? {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else {
                    return nil
                }
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    // MARK: - Cycles

    /// Rejects loops of `$ref`/`allOf`/`anyOf`/`oneOf`/`not`/`if` that return to a node without
    /// descending into the instance: evaluating them would never terminate.
    private func checkForCycles() throws(JSONSchemaError) {
        enum Mark { case unvisited, active, done }
        var marks = [Mark](repeating: .unvisited, count: schema.nodes.count)
        for start in schema.nodes.indices where marks[start] == .unvisited {
            // Iterative DFS: (node, next edge index).
            var stack: [(node: Int, edges: [Int], next: Int)] = [(start, inPlaceEdges(of: start), 0)]
            marks[start] = .active
            while !stack.isEmpty {
                let top = stack.count - 1
                if stack[top].next == stack[top].edges.count {
                    marks[stack[top].node] = .done
                    stack.removeLast()
                    continue
                }
                let target = stack[top].edges[stack[top].next]
                stack[top].next += 1
                switch marks[target] {
                case .active:
                    throw JSONSchemaError(
                        code: .referenceCycle,
                        message: "subschema \(schema.nodes[target].location) applies itself to the same instance "
                            + "through $ref/allOf/anyOf/oneOf/not/if without descending",
                        context: schema.nodes[stack[top].node].location
                    )
                case .unvisited:
                    marks[target] = .active
                    stack.append((target, inPlaceEdges(of: target), 0))
                case .done:
                    break
                }
            }
        }
    }

    private func inPlaceEdges(of node: Int) -> [Int] {
        var edges: [Int] = []
        for keyword in schema.nodes[node].keywords {
            switch keyword.rule {
            case .allOf(let nodes), .anyOf(let nodes), .oneOf(let nodes): edges += nodes
            case .not(let n): edges.append(n)
            case .conditional(let c, let t, let e): edges += [c] + [t, e].compactMap { $0 }
            case .reference(let target, _): edges.append(target)
            default: break
            }
        }
        return edges
    }

    /// Compact JSON of `value`, shortened for messages.
    static func render(_ value: JSONValue) -> String {
        let text = JSONWriter.string(value)
        return text.unicodeScalars.count > 80 ? String(text.unicodeScalars.prefix(77)) + "..." : text
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
