import StepwiseExpressions
import StepwiseJSON

extension SequenceValidator {
    // MARK: router

    mutating func router(_ object: JSONObject, at pointer: JSONPointer, depth: Int) -> RouterBlock? {
        checkFields(object, at: pointer, known: FieldKeys.routerFields)
        let before = problems.count
        var routes: [RouterBlock.Route] = []
        var routeCount = 0
        if let value = member(object, "routes", at: pointer, required: false) {
            let rp = pointer.appending("routes")
            if case .array(let list) = value {
                routeCount = list.count
                for (i, element) in list.enumerated() {
                    if let route = route(element, at: rp.appending(i), depth: depth) { routes.append(route) }
                }
            } else {
                wrongType(pointer, "routes", expected: "array", got: value)
            }
        }
        let defaultBlocks = blocksMember(object, "default", at: pointer, depth: depth + 1, required: false)
        if routeCount == 0 && object["default"].map({ $0.isNull }) ?? true {
            error(pointer, .invalidRouter, "router has no route and no default")
        }
        guard problems.count == before else { return nil }
        return RouterBlock(routes: routes, defaultBlocks: defaultBlocks)
    }

    mutating func route(_ value: JSONValue, at pointer: JSONPointer, depth: Int) -> RouterBlock.Route? {
        guard case .object(let object) = value else {
            error(pointer, .wrongType, "route: expected object, got \(value.typeName)")
            return nil
        }
        checkFields(object, at: pointer, known: FieldKeys.routeFields)
        var expression: Expression?
        if let text = string(object, "condition", at: pointer, required: true) {
            if text.allSatisfy(\.isWhitespace) {
                error(pointer.appending("condition"), .invalidRouter, "route condition is blank")
            } else {
                expression = condition(text, at: pointer, "condition")
            }
        }
        let blocks = blocksMember(object, "blocks", at: pointer, depth: depth + 1, required: true)
        guard let expression, let blocks else { return nil }
        return RouterBlock.Route(condition: expression, blocks: blocks)
    }

    // MARK: parallel and race

    mutating func branches(_ object: JSONObject, type: BlockType, at pointer: JSONPointer, depth: Int) -> [[Block]]? {
        guard let value = member(object, "branches", at: pointer, required: true) else { return nil }
        let bp = pointer.appending("branches")
        guard case .array(let list) = value else {
            wrongType(pointer, "branches", expected: "array of block arrays", got: value)
            return nil
        }
        if list.isEmpty {
            error(bp, .noBranches, "\(type) has no branches")
            return nil
        }
        if list.count > limits.maxBranches {
            error(bp, .tooManyBranches, "\(type) has \(list.count) branches, more than the limit of \(limits.maxBranches)")
        }
        var result: [[Block]] = []
        for (i, branch) in list.enumerated() {
            guard case .array(let blocks) = branch else {
                error(bp.appending(i), .wrongType, "branch: expected array of blocks, got \(branch.typeName)")
                continue
            }
            result.append(blockList(blocks, at: bp.appending(i), depth: depth + 1))
        }
        return result
    }

    mutating func parallel(_ object: JSONObject, at pointer: JSONPointer, depth: Int) -> ParallelBlock? {
        checkFields(object, at: pointer, known: FieldKeys.parallelFields)
        let before = problems.count
        let branches = branches(object, type: .parallel, at: pointer, depth: depth)
        let failFast = bool(object, "fail_fast", at: pointer) ?? false
        guard problems.count == before, let branches else { return nil }
        return ParallelBlock(branches: branches, failFast: failFast)
    }

    mutating func race(_ object: JSONObject, at pointer: JSONPointer, depth: Int) -> RaceBlock? {
        checkFields(object, at: pointer, known: FieldKeys.raceFields)
        let before = problems.count
        let branches = branches(object, type: .race, at: pointer, depth: depth)
        var semantics = RaceBlock.Semantics.firstToResolve
        if let text = string(object, "semantics", at: pointer) {
            if let s = RaceBlock.Semantics(rawValue: text) {
                semantics = s
            } else {
                error(
                    pointer.appending("semantics"), .wrongType,
                    "semantics '\(text)' is not one of: \(RaceBlock.Semantics.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        guard problems.count == before, let branches else { return nil }
        return RaceBlock(branches: branches, semantics: semantics)
    }

    // MARK: loop

    mutating func iterationCap(
        _ object: JSONObject, _ key: String, at pointer: JSONPointer, range: ClosedRange<Int64>, default value: Int,
        code: ProblemCode
    ) -> Int {
        guard let n = integer(object, key, at: pointer) else { return value }
        guard range.contains(n) else {
            error(pointer.appending(key), code, "\(key) \(n) is outside \(range.lowerBound)…\(range.upperBound)")
            return value
        }
        return Int(n)
    }

    mutating func loop(_ object: JSONObject, at pointer: JSONPointer, depth: Int) -> LoopBlock? {
        checkFields(
            object, at: pointer,
            known: FieldKeys.loopFields, ignored: FieldKeys.ignoredIterationFields)
        let before = problems.count
        var expression: Expression?
        if let text = string(object, "condition", at: pointer, required: true) {
            if text.allSatisfy(\.isWhitespace) {
                error(pointer.appending("condition"), .invalidLoop, "loop condition is blank")
            } else {
                expression = condition(text, at: pointer, "condition")
            }
        }
        let body = blocksMember(object, "body", at: pointer, depth: depth + 1, required: true)
        if let body, body.isEmpty, case .array(let raw)? = object["body"], raw.isEmpty {
            error(pointer.appending("body"), .invalidLoop, "loop body is empty")
        }
        let maxIterations = iterationCap(
            object, "max_iterations", at: pointer, range: 1...Int64(SequenceLimits.maxIterations), default: 1000,
            code: .invalidLoop)
        var breakOn: Expression?
        if let text = string(object, "break_on", at: pointer) {
            breakOn = condition(text, at: pointer, "break_on")
        }
        let continueOnError = bool(object, "continue_on_error", at: pointer) ?? false
        var pollInterval: Int64?
        if let seconds = integer(object, "poll_interval", at: pointer) {
            if seconds < 0 {
                error(pointer.appending("poll_interval"), .invalidLoop, "poll_interval \(seconds) is negative")
            } else {
                pollInterval = seconds
            }
        }
        guard problems.count == before, let expression, let body else { return nil }
        return LoopBlock(
            condition: expression, body: body, maxIterations: maxIterations, breakOn: breakOn,
            continueOnError: continueOnError, pollIntervalSeconds: pollInterval)
    }

    // MARK: for_each

    static let templateCollectionRoots = ["outputs.", "steps.", "config.", "input."]

    mutating func forEach(_ object: JSONObject, at pointer: JSONPointer, depth: Int) -> ForEachBlock? {
        checkFields(
            object, at: pointer,
            known: FieldKeys.forEachFields, ignored: FieldKeys.ignoredIterationFields)
        let before = problems.count
        var collection: ForEachBlock.Collection?
        let text = string(object, "collection", at: pointer, required: true)
        if let text {
            collection = collectionSource(text, at: pointer.appending("collection"))
        }
        var itemVariable = "item"
        if let item = string(object, "item_var", at: pointer) {
            if item.allSatisfy(\.isWhitespace) {
                error(pointer.appending("item_var"), .invalidForEach, "item_var is blank")
            } else {
                itemVariable = item
            }
        }
        var indexVariable: String?
        if let index = string(object, "index_var", at: pointer) {
            if index.allSatisfy(\.isWhitespace) {
                error(pointer.appending("index_var"), .invalidForEach, "index_var is blank")
            } else if index == itemVariable {
                error(pointer.appending("index_var"), .invalidForEach, "index_var '\(index)' is the same as item_var")
            } else {
                indexVariable = index
            }
        }
        let body = blocksMember(object, "body", at: pointer, depth: depth + 1, required: true)
        if let body, body.isEmpty, case .array(let raw)? = object["body"], raw.isEmpty {
            error(pointer.appending("body"), .invalidForEach, "for_each body is empty")
        }
        let maxIterations = iterationCap(
            object, "max_iterations", at: pointer, range: 1...Int64(SequenceLimits.maxIterations), default: 1000,
            code: .invalidForEach)
        let maxConcurrency = iterationCap(
            object, "max_concurrency", at: pointer, range: 1...Int64(SequenceLimits.maxForEachConcurrency), default: 1,
            code: .invalidForEach)
        guard problems.count == before, let text, let collection, let body else { return nil }
        return ForEachBlock(
            collectionText: text, collection: collection, itemVariable: itemVariable, indexVariable: indexVariable,
            body: body, maxIterations: maxIterations, maxConcurrency: maxConcurrency)
    }

    mutating func collectionSource(_ text: String, at p: JSONPointer) -> ForEachBlock.Collection? {
        let trimmed = text.trimmingWhitespace()
        if trimmed.isEmpty {
            error(p, .invalidForEach, "collection is blank")
            return nil
        }
        if Template.containsOpening(text) {
            do {
                let template = try Template.compile(text)
                guard template.isWhole else {
                    error(p, .invalidForEach, "collection '\(text)' must be a path or a single {{ }} template")
                    return nil
                }
                for w in template.warnings { warn(p, .template, w) }
                return .template(template)
            } catch {
                self.error(p, .template, error.description)
                return nil
            }
        }
        var path = Substring(trimmed)
        // One prefix is stripped: what follows is a key path, so `data.data` is the key `data`.
        // `context.data` alone is the whole object (no key path could mean anything else).
        if path == "context.data" {
            path = ""
        } else if let prefix = ["context.data.", "data."].first(where: { path.hasPrefix($0) }) {
            path = path.dropFirst(prefix.count)
        }
        let segments = path.isEmpty ? [] : path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if segments.contains(where: \.isEmpty) {
            error(p, .invalidForEach, "collection path '\(text)' has an empty segment")
            return nil
        }
        if let root = Self.templateCollectionRoots.first(where: { trimmed.hasPrefix($0) }) {
            warn(
                p, .suspiciousCollection,
                "collection path '\(trimmed)' is read from context.data; did you mean the template '{{ \(trimmed) }}'? (\(root.dropLast()) is a template root)")
        }
        return .path(segments)
    }

    // MARK: try_catch

    mutating func tryCatch(_ object: JSONObject, at pointer: JSONPointer, depth: Int) -> TryCatchBlock? {
        checkFields(object, at: pointer, known: FieldKeys.tryCatchFields)
        let before = problems.count
        let tryBlocks = blocksMember(object, "try_block", at: pointer, depth: depth + 1, required: true)
        if let tryBlocks, tryBlocks.isEmpty, case .array(let raw)? = object["try_block"], raw.isEmpty {
            error(pointer.appending("try_block"), .invalidTryCatch, "try_block is empty")
        }
        let catchBlocks = blocksMember(object, "catch_block", at: pointer, depth: depth + 1, required: false)
        let finallyBlocks = blocksMember(object, "finally_block", at: pointer, depth: depth + 1, required: false)
        guard problems.count == before, let tryBlocks else { return nil }
        return TryCatchBlock(tryBlocks: tryBlocks, catchBlocks: catchBlocks, finallyBlocks: finallyBlocks)
    }

    // MARK: sub_sequence

    mutating func subSequence(_ object: JSONObject, at pointer: JSONPointer) -> SubSequenceBlock? {
        checkFields(object, at: pointer, known: FieldKeys.subSequenceFields)
        let before = problems.count
        var name: String?
        if let n = string(object, "sequence_name", at: pointer, required: true) {
            if n.allSatisfy(\.isWhitespace) {
                error(pointer.appending("sequence_name"), .invalidSubSequence, "sequence_name is blank")
            } else {
                name = n
            }
        }
        var version: Int?
        if let v = integer(object, "version", at: pointer) {
            if v < 0 || v > Int64(Int32.max) {
                error(pointer.appending("version"), .invalidSubSequence, "version \(v) is outside 0…\(Int32.max)")
            } else {
                version = Int(v)
            }
        }
        // `null` is absent. (`nil` must be spelled as an Optional here: JSONValue is
        // ExpressibleByNilLiteral, so a bare `nil` would become JSON null.)
        var rawInput = JSONValue.object(JSONObject())
        if let given = object["input"], !given.isNull { rawInput = given }
        let ip = pointer.appending("input")
        switch rawInput {
        case .object: break
        case .string(let s) where Template.containsOpening(s): break
        default:
            // The node fails when it runs (§2.8: "must be an object, else the node fails"); the
            // author hears of it now.
            warn(ip, .invalidSubSequence, "input must be an object, got \(rawInput.typeName): the sub_sequence fails when it runs")
        }
        let input = templated(rawInput, at: ip)
        guard problems.count == before, let name, let input else { return nil }
        return SubSequenceBlock(sequenceName: name, version: version, input: input)
    }

    // MARK: a_b_split

    mutating func abSplit(_ object: JSONObject, at pointer: JSONPointer, depth: Int) -> ABSplitBlock? {
        checkFields(object, at: pointer, known: FieldKeys.abSplitFields)
        let before = problems.count
        guard let value = member(object, "variants", at: pointer, required: true) else { return nil }
        let vp = pointer.appending("variants")
        guard case .array(let list) = value else {
            wrongType(pointer, "variants", expected: "array", got: value)
            return nil
        }
        if list.count < 2 {
            error(vp, .invalidABSplit, "a_b_split needs at least 2 variants, got \(list.count)")
        }
        var variants: [ABSplitBlock.Variant] = []
        var names: [String: Int] = [:]
        var total: Int64 = 0
        var weightsValid = true
        for (i, element) in list.enumerated() {
            let ep = vp.appending(i)
            guard case .object(let v) = element else {
                error(ep, .wrongType, "variant: expected object, got \(element.typeName)")
                weightsValid = false
                continue
            }
            checkFields(v, at: ep, known: FieldKeys.variantFields)
            var name: String?
            if let n = string(v, "name", at: ep, required: true) {
                if n.allSatisfy(\.isWhitespace) {
                    error(ep.appending("name"), .invalidABSplit, "variant name is blank")
                } else if let first = names[n] {
                    error(ep.appending("name"), .invalidABSplit, "duplicate variant name '\(n)', first at \(vp.appending(first))")
                } else {
                    names[n] = i
                    name = n
                }
            }
            var weight: Int64?
            if let w = integer(v, "weight", at: ep, required: true) {
                if w < 0 {
                    error(ep.appending("weight"), .invalidABSplit, "variant weight \(w) is negative")
                    weightsValid = false
                } else {
                    weight = w
                    let (sum, overflow) = total.addingReportingOverflow(w)
                    if overflow {
                        error(ep.appending("weight"), .invalidABSplit, "variant weights add up to more than \(Int64.max)")
                        weightsValid = false
                    } else {
                        total = sum
                    }
                    if w == 0 {
                        warn(ep.appending("weight"), .zeroWeight, "variant '\(name ?? "?")' has weight 0 and is never chosen")
                    }
                }
            } else {
                weightsValid = false
            }
            let blocks = blocksMember(v, "blocks", at: ep, depth: depth + 1, required: true)
            if let name, let weight, let blocks {
                variants.append(ABSplitBlock.Variant(name: name, weight: weight, blocks: blocks))
            }
        }
        if weightsValid && total == 0 && !list.isEmpty {
            error(vp, .invalidABSplit, "the total weight of the variants is 0")
        }
        guard problems.count == before else { return nil }
        return ABSplitBlock(variants: variants)
    }

    // MARK: cancellation_scope

    mutating func cancellationScope(_ object: JSONObject, at pointer: JSONPointer, depth: Int) -> CancellationScopeBlock? {
        checkFields(object, at: pointer, known: FieldKeys.scopeFields)
        let before = problems.count
        let blocks = blocksMember(object, "blocks", at: pointer, depth: depth + 1, required: true)
        if let blocks, blocks.isEmpty, case .array(let raw)? = object["blocks"], raw.isEmpty {
            error(pointer.appending("blocks"), .invalidScope, "cancellation_scope has no blocks")
        }
        guard problems.count == before, let blocks else { return nil }
        return CancellationScopeBlock(blocks: blocks)
    }
}

extension String {
    /// The string without leading and trailing whitespace.
    func trimmingWhitespace() -> Substring {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return s
    }
}
