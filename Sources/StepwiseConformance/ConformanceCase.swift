public import StepwiseJSON

/// One conformance case read from a case file (CONFORMANCE.md).
public struct ConformanceCase: Sendable {
    /// What the case checks.
    public enum Kind: Sendable {
        /// A sequence run against the engine.
        case sequence(SequenceCase)
        /// An expression compiled and evaluated once.
        case expression(ExpressionCase)
    }

    /// The file the case came from, as given.
    public let file: String
    /// The case name.
    public let name: String
    /// The case body.
    public let kind: Kind
}

/// A sequence case: sequences, handlers, host actions and expectations.
public struct SequenceCase: Sendable {
    /// The sequence started, as JSON.
    public let sequence: JSONValue
    /// The sequence's bytes as written in the case file, which the engine loads (so size
    /// limits, nesting and byte offsets are those of the text the author wrote).
    public let sequenceBytes: [UInt8]
    /// Extra sequences loaded first (sub_sequence targets).
    public let extraSequences: [JSONValue]
    /// The extra sequences' bytes as written, in the same order.
    public let extraSequenceBytes: [[UInt8]]
    /// The instance id to start with, when given.
    public let instanceID: String?
    /// The start input.
    public let input: JSONValue
    /// Scripted responses per handler name.
    public let handlers: [String: [JSONValue]]
    /// Host actions, in order.
    public let actions: [JSONValue]
    /// Expectations.
    public let expect: JSONObject
}

/// An expression case.
public struct ExpressionCase: Sendable {
    /// The expression text.
    public let expression: String
    /// `context.data`.
    public let data: JSONValue
    /// `context.config`.
    public let config: JSONValue
    /// Prior outputs by block id.
    public let outputs: JSONObject
    /// The expected value, when given.
    public let expected: JSONValue?
    /// The expected truthiness, when given.
    public let expectedTruthy: Bool?
    /// The expected error substring (`""` = any error), when given.
    public let expectedError: String?
}

/// A case file that cannot be used (not JSON, not a case).
public struct ConformanceInputError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public let file: String
    /// What is wrong.
    public let message: String
    public var description: String { "\(file): \(message)" }
}
