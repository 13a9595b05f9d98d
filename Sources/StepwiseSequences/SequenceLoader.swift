public import StepwiseJSON

/// Turns sequence document bytes into a ``CompiledSequence``, or reports every problem.
///
/// Loading decodes strictly (SEMANTICS §1.1), validates every rule of §1.6, and compiles every
/// condition and template, collecting all problems with JSON pointers rather than stopping at
/// the first. It never checks handler registration; an engine does that after loading.
///
/// ```swift
/// let result = SequenceLoader.load(Array(json.utf8))
/// for problem in result.problems { print(problem) }   // "/blocks/1/handler: missing_field: …"
/// let program = try result.get()
/// ```
public enum SequenceLoader {
    /// Loads a document from its bytes.
    ///
    /// - Parameters:
    ///   - bytes: the UTF-8 JSON document.
    ///   - limits: size, nesting and count bounds.
    /// - Returns: the compiled sequence with warnings, or every problem found. Never throws:
    ///   malformed bytes become an `invalid_json`, `too_deep_json` or `too_large` problem.
    public static func load(_ bytes: [UInt8], limits: SequenceLimits = SequenceLimits()) -> LoadResult {
        if bytes.count > limits.maxDocumentBytes {
            return LoadResult(
                sequence: nil,
                problems: [
                    Problem(
                        pointer: .root, code: .tooLarge,
                        message: "document is \(bytes.count) bytes, more than the limit of \(limits.maxDocumentBytes)")
                ],
                warnings: [])
        }
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes, limits: .init(maxDepth: limits.maxJSONDepth))
        } catch {
            let code: ProblemCode = error.code == .tooDeep ? .tooDeepJSON : .invalidJSON
            return LoadResult(
                sequence: nil,
                problems: [Problem(pointer: .root, code: code, message: "\(error.message) at byte \(error.offset)")],
                warnings: [])
        }
        return load(document: document, sourceBytes: bytes, limits: limits)
    }

    /// Validates and compiles an already parsed document.
    ///
    /// - Parameters:
    ///   - document: the parsed document.
    ///   - sourceBytes: the bytes it came from, kept in the result.
    ///   - pointer: where the document sits (non-empty when it is an element of an array of sequences).
    ///   - limits: bounds.
    /// - Returns: the compiled sequence or every problem. Never throws.
    public static func load(
        document: JSONValue, sourceBytes: [UInt8], at pointer: JSONPointer = .root,
        limits: SequenceLimits = SequenceLimits()
    ) -> LoadResult {
        var validator = SequenceValidator(limits: limits)
        let sequence = validator.validateDocument(document, sourceBytes: sourceBytes, at: pointer)
        let problems = validator.problems.sorted { $0.pointer < $1.pointer }
        let warnings = validator.warnings.sorted { $0.pointer < $1.pointer }
        return LoadResult(sequence: problems.isEmpty ? sequence : nil, problems: problems, warnings: warnings)
    }
}
