public import StepwiseJSON

/// One way an instance fails a schema: where in the instance, which keyword, and why.
///
/// ```swift
/// let validator = try JSONSchemaValidator(schema: ["type": "object", "required": ["name"]])
/// let violation = validator.validate([:])[0]
/// violation.instanceLocation.description   // ""
/// violation.keyword                        // "required"
/// violation.message                        // "missing property 'name'"
/// ```
public struct JSONSchemaViolation: Sendable, Hashable, CustomStringConvertible {
    /// RFC 6901 pointer to the instance value that failed (`/blocks/0/retry/max_attempts`).
    public let instanceLocation: JSONPointer
    /// The keyword that failed (`required`, `minimum`, `anyOf`, ...).
    public let keyword: String
    /// The failing keyword's absolute location: the schema `$id`, `#` and a JSON pointer
    /// (`https://…/sequence.schema.json#/$defs/retry/properties/max_attempts/minimum`).
    public let schemaLocation: String
    /// What is wrong, naming the value and the limit.
    public let message: String

    /// Creates a violation.
    public init(instanceLocation: JSONPointer, keyword: String, schemaLocation: String, message: String) {
        self.instanceLocation = instanceLocation
        self.keyword = keyword
        self.schemaLocation = schemaLocation
        self.message = message
    }

    /// `<instance pointer>: <keyword>: <message>`; the whole instance shows as `/`.
    public var description: String {
        let location = instanceLocation.tokens.isEmpty ? "/" : instanceLocation.description
        return "\(location): \(keyword): \(message)"
    }
}
