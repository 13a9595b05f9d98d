import StepwiseExpressions
import StepwiseJSON

/// Walks a parsed sequence document once, collecting every problem and building the AST.
///
/// Reading helpers report `missing_field` / `wrong_type` at the member concerned and return
/// `nil`, so validation carries on past any number of problems. The AST is only handed out
/// when no problem was found.
struct SequenceValidator {
    let limits: SequenceLimits
    private(set) var problems: [Problem] = []
    private(set) var warnings: [Problem] = []
    private var blockCount = 0
    private var firstExcessBlock: JSONPointer?
    /// Block ids seen, by their UTF-8 bytes: distinct JSON strings are distinct ids, even
    /// canonically equivalent ones (which Swift's `String ==` takes as equal).
    private var idSpace: [[UInt8]: JSONPointer] = [:]
    private var handlerNames: Set<String> = []

    init(limits: SequenceLimits) { self.limits = limits }

    // MARK: Reporting

    mutating func error(_ pointer: JSONPointer, _ code: ProblemCode, _ message: String) {
        problems.append(Problem(pointer: pointer, code: code, message: message))
    }

    mutating func warn(_ pointer: JSONPointer, _ code: ProblemCode, _ message: String) {
        warnings.append(Problem(pointer: pointer, code: code, message: message))
    }

    // MARK: Document

    static let envelopeFields: Set<String> = [
        "name", "version", "blocks", "deprecated", "on_failure", "on_cancel",
        "id", "tenant_id", "namespace", "status", "created_at", "input_schema",
    ]
    static let preservedEnvelopeFields = ["id", "tenant_id", "namespace", "status", "created_at", "input_schema"]
    static let ignoredEnvelopeFields: Set<String> = ["interceptors", "sla"]

    mutating func validateDocument(_ document: JSONValue, sourceBytes: [UInt8], at root: JSONPointer)
        -> CompiledSequence?
    {
        guard case .object(let object) = document else {
            error(root, .wrongType, "sequence document: expected object, got \(document.typeName)")
            return nil
        }
        checkFields(object, at: root, known: FieldKeys.envelopeFields, ignored: FieldKeys.ignoredEnvelopeFields)

        let name = string(object, "name", at: root, required: true)
        if let name, name.allSatisfy(\.isWhitespace) {
            error(root.appending("name"), .missingField, "field 'name' is blank")
        }
        var version: Int?
        if let v = integer(object, "version", at: root, required: true) {
            if v < 0 || v > Int64(Int32.max) {
                error(root.appending("version"), .wrongType, "version \(v) is outside 0…\(Int32.max)")
            } else {
                version = Int(v)
            }
        }
        let deprecated = bool(object, "deprecated", at: root) ?? false

        var blocks: [Block]?
        let blocksPointer = root.appending("blocks")
        if let list = blockArray(object, "blocks", at: root, required: true) {
            if list.isEmpty {
                error(blocksPointer, .emptyBlocks, "sequence has no blocks")
            }
            blocks = blockList(list, at: blocksPointer, depth: 1)
        }

        var onFailure: [Block]?
        if let list = blockArray(object, "on_failure", at: root, required: false) {
            idSpace = [:]
            onFailure = blockList(list, at: root.appending("on_failure"), depth: 1)
        }
        var onCancel: [Block]?
        if let list = blockArray(object, "on_cancel", at: root, required: false) {
            idSpace = [:]
            onCancel = blockList(list, at: root.appending("on_cancel"), depth: 1)
        }

        if let firstExcessBlock {
            error(
                firstExcessBlock, .tooManyBlocks,
                "the document has \(blockCount) blocks, more than the limit of \(limits.maxBlocks)")
        }

        var envelope = JSONObject()
        for key in Self.preservedEnvelopeFields {
            if let v = object[key] { envelope[key] = v }
        }
        guard problems.isEmpty, let name, let version, let blocks else { return nil }
        return CompiledSequence(
            name: name, version: version, isDeprecated: deprecated, blocks: blocks, onFailure: onFailure,
            onCancel: onCancel, envelope: envelope, sourceBytes: sourceBytes, handlerNames: handlerNames.sorted(),
            blockCount: blockCount)
    }

    // MARK: Block lists

    /// Reads `key` as an array (of blocks, validated by the caller).
    mutating func blockArray(_ object: JSONObject, _ key: String, at pointer: JSONPointer, required: Bool)
        -> [JSONValue]?
    {
        guard let value = member(object, key, at: pointer, required: required) else { return nil }
        guard case .array(let list) = value else {
            error(pointer.appending(key), .wrongType, "field '\(key)': expected array of blocks, got \(value.typeName)")
            return nil
        }
        return list
    }

    /// Validates each element of a list as a block.
    mutating func blockList(_ list: [JSONValue], at pointer: JSONPointer, depth: Int) -> [Block] {
        var blocks: [Block] = []
        blocks.reserveCapacity(list.count)
        for (i, element) in list.enumerated() {
            if let block = block(element, at: pointer.appending(i), depth: depth) { blocks.append(block) }
        }
        return blocks
    }

    /// Reads a block list member: `nil` (with a problem) when absent-but-required or mistyped.
    mutating func blocksMember(
        _ object: JSONObject, _ key: String, at pointer: JSONPointer, depth: Int, required: Bool
    ) -> [Block]? {
        guard let list = blockArray(object, key, at: pointer, required: required) else { return nil }
        return blockList(list, at: pointer.appending(key), depth: depth)
    }

    // MARK: Blocks

    static let commonBlockFields: Set<String> = ["type", "id"]

    mutating func block(_ value: JSONValue, at pointer: JSONPointer, depth: Int) -> Block? {
        blockCount += 1
        if blockCount > limits.maxBlocks && firstExcessBlock == nil { firstExcessBlock = pointer }
        if depth > limits.maxBlockDepth {
            error(pointer, .tooDeep, "block nesting \(depth) exceeds the limit of \(limits.maxBlockDepth)")
            return nil
        }
        guard case .object(let object) = value else {
            error(pointer, .wrongType, "block: expected object, got \(value.typeName)")
            return nil
        }
        var typePointer: JSONPointer { pointer.appending("type") }
        var type: BlockType?
        switch object["type"] {
        case nil:
            error(typePointer, .unknownType, "missing block type; expected one of: \(BlockType.canonicalList)")
        case .string(let tag)?:
            if let t = BlockType(tag: tag) {
                type = t
            } else if tag == "saga" {
                error(typePointer, .unsupported, "block type 'saga' is not supported")
            } else {
                error(typePointer, .unknownType, "unknown block type '\(tag)'; expected one of: \(BlockType.canonicalList)")
            }
        case let other?:
            error(
                typePointer, .unknownType,
                "block type must be a string, got \(other.typeName); expected one of: \(BlockType.canonicalList)")
        }

        var id: BlockID?
        if let text = string(object, "id", at: pointer, required: true) {
            let idPointer = pointer.appending("id")
            if text.isEmpty {
                error(idPointer, .emptyID, "block id is empty")
            } else if let first = idSpace[Array(text.utf8)] {
                error(idPointer, .duplicateID, "duplicate block id '\(text)', first at \(first)")
            } else {
                idSpace[Array(text.utf8)] = pointer
                id = BlockID(text)
            }
        }

        guard let type else { return nil }
        let kind: BlockKind?
        switch type {
        case .step: kind = step(object, at: pointer).map(BlockKind.step)
        case .router: kind = router(object, at: pointer, depth: depth).map(BlockKind.router)
        case .parallel: kind = parallel(object, at: pointer, depth: depth).map(BlockKind.parallel)
        case .race: kind = race(object, at: pointer, depth: depth).map(BlockKind.race)
        case .loop: kind = loop(object, at: pointer, depth: depth).map(BlockKind.loop)
        case .forEach: kind = forEach(object, at: pointer, depth: depth).map(BlockKind.forEach)
        case .tryCatch: kind = tryCatch(object, at: pointer, depth: depth).map(BlockKind.tryCatch)
        case .subSequence: kind = subSequence(object, at: pointer).map(BlockKind.subSequence)
        case .abSplit: kind = abSplit(object, at: pointer, depth: depth).map(BlockKind.abSplit)
        case .cancellationScope: kind = cancellationScope(object, at: pointer, depth: depth).map(BlockKind.cancellationScope)
        }
        guard let id, let kind else { return nil }
        return Block(id: id, pointer: pointer, kind: kind)
    }

    // MARK: Field reading

    /// Warns about members that are neither known nor deliberately ignored.
    mutating func checkFields(
        _ object: JSONObject, at pointer: JSONPointer, known: JSONKeySet, ignored: JSONKeySet = []
    ) {
        // Compares the object's own keys with the known names: no array of keys, no hashing.
        object.forEachKey(notIn: known) { key in
            if ignored.contains(key) {
                warn(pointer.appending(key), .ignoredField, "field '\(key)' has no effect in Stepwise and is ignored")
            } else {
                warn(pointer.appending(key), .unknownField, "unknown field '\(key)' is ignored")
            }
        }
    }

    /// The member `key`, reporting `missing_field` when required and absent. `null` counts as absent
    /// only for optional members.
    mutating func member(_ object: JSONObject, _ key: String, at pointer: JSONPointer, required: Bool) -> JSONValue? {
        guard let value = object[key] else {
            if required { error(pointer.appending(key), .missingField, "missing field '\(key)'") }
            return nil
        }
        if value.isNull && !required { return nil }
        return value
    }

    mutating func wrongType(_ pointer: JSONPointer, _ key: String, expected: String, got value: JSONValue) {
        error(pointer.appending(key), .wrongType, "field '\(key)': expected \(expected), got \(value.typeName)")
    }

    mutating func string(_ object: JSONObject, _ key: String, at pointer: JSONPointer, required: Bool = false)
        -> String?
    {
        guard let value = member(object, key, at: pointer, required: required) else { return nil }
        guard case .string(let s) = value else {
            wrongType(pointer, key, expected: "string", got: value)
            return nil
        }
        return s
    }

    mutating func bool(_ object: JSONObject, _ key: String, at pointer: JSONPointer, required: Bool = false) -> Bool? {
        guard let value = member(object, key, at: pointer, required: required) else { return nil }
        guard case .bool(let b) = value else {
            wrongType(pointer, key, expected: "boolean", got: value)
            return nil
        }
        return b
    }

    mutating func integer(_ object: JSONObject, _ key: String, at pointer: JSONPointer, required: Bool = false)
        -> Int64?
    {
        guard let value = member(object, key, at: pointer, required: required) else { return nil }
        guard case .integer(let i) = value else {
            wrongType(pointer, key, expected: "integer", got: value)
            return nil
        }
        return i
    }

    mutating func number(_ object: JSONObject, _ key: String, at pointer: JSONPointer, required: Bool = false)
        -> Double?
    {
        guard let value = member(object, key, at: pointer, required: required) else { return nil }
        guard let d = value.numberValue else {
            wrongType(pointer, key, expected: "number", got: value)
            return nil
        }
        return d
    }

    /// A duration (SEMANTICS §1.4): integer milliseconds or fractional seconds.
    mutating func duration(_ object: JSONObject, _ key: String, at pointer: JSONPointer, required: Bool = false)
        -> Int64?
    {
        guard let value = member(object, key, at: pointer, required: required) else { return nil }
        let p = pointer.appending(key)
        let limit = SequenceLimits.maxDurationMilliseconds
        switch value {
        case .integer(let ms):
            guard ms >= 0 else {
                error(p, .invalidDuration, "\(key) \(ms) is negative")
                return nil
            }
            guard ms <= limit else {
                error(p, .invalidDuration, "\(key) \(ms) ms is more than the limit of \(limit) ms")
                return nil
            }
            return ms
        case .double(let seconds):
            guard seconds >= 0 else {
                error(p, .invalidDuration, "\(key) \(seconds) is negative")
                return nil
            }
            let ms = FractionalSeconds.milliseconds(seconds)
            guard ms <= Double(limit) else {
                error(p, .invalidDuration, "\(key) \(seconds) s is more than the limit of \(limit) ms")
                return nil
            }
            return Int64(ms)
        default:
            error(
                p, .invalidDuration,
                "\(key) must be a number (integer milliseconds or fractional seconds), got \(value.typeName)")
            return nil
        }
    }

    /// Compiles a condition, reporting `expression` problems and nondeterminism warnings.
    /// Compiles the condition at member `key` of the object at `pointer`; the member's pointer
    /// is only built for a problem or a warning.
    mutating func condition(_ text: String, at pointer: JSONPointer, _ key: String) -> Expression? {
        do {
            let expression = try Expression.compile(text)
            for w in expression.warnings { warn(pointer.appending(key), .nondeterministicCondition, w) }
            return expression
        } catch {
            self.error(pointer.appending(key), .expression, error.description)
            return nil
        }
    }

    /// Compiles a JSON value whose strings may be templates.
    mutating func templated(_ value: JSONValue, at pointer: JSONPointer) -> TemplatedValue? {
        let compiled = TemplatedValue.compile(value, at: pointer)
        for p in compiled.problems { error(p.pointer, .template, p.message) }
        for w in compiled.warnings { warn(w.pointer, .template, w.message) }
        return compiled.value
    }

    mutating func noteHandler(_ name: String) { handlerNames.insert(name) }
}
