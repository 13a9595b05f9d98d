/// The outcome of loading a sequence document: the program, or every problem found.
public struct LoadResult: Sendable {
    /// The compiled sequence; `nil` when any problem exists.
    public let sequence: CompiledSequence?
    /// Every error, in document order.
    public let problems: [Problem]
    /// Every warning, in document order.
    public let warnings: [Problem]

    /// Creates a result.
    public init(sequence: CompiledSequence?, problems: [Problem], warnings: [Problem]) {
        self.sequence = sequence
        self.problems = problems
        self.warnings = warnings
    }

    /// Whether the document is valid.
    public var isValid: Bool { problems.isEmpty }

    /// The compiled sequence, or an error listing every problem.
    ///
    /// - Throws: ``SequenceInvalidError`` when any problem exists; nothing else.
    public func get() throws(SequenceInvalidError) -> CompiledSequence {
        if let sequence, problems.isEmpty { return sequence }
        throw SequenceInvalidError(problems: problems)
    }
}

/// A sequence failed validation; carries every problem.
public struct SequenceInvalidError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Every problem, in document order.
    public let problems: [Problem]
    /// Creates the error.
    public init(problems: [Problem]) { self.problems = problems }
    /// `sequence is invalid (N problems):` then each problem on its own line as
    /// `<pointer>: <code>: <message>`.
    public var description: String {
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        return (["sequence is invalid (\(count)):"] + problems.map(\.description)).joined(separator: "\n")
    }
}
