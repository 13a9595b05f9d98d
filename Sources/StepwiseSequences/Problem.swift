public import StepwiseJSON

/// One validation finding: where it is, its code and what to do about it.
///
/// Errors and warnings share this shape; ``LoadResult`` keeps them apart.
public struct Problem: Sendable, Hashable, CustomStringConvertible {
    /// RFC 6901 pointer to the member or element concerned (`/blocks/3/routes/0/condition`).
    public let pointer: JSONPointer
    /// The problem's code.
    public let code: ProblemCode
    /// A message an author can act on, naming the value at fault.
    public let message: String

    /// Creates a problem.
    public init(pointer: JSONPointer, code: ProblemCode, message: String) {
        self.pointer = pointer
        self.code = code
        self.message = message
    }

    /// `<pointer>: <code>: <message>`; the empty pointer of the whole document shows as `/`.
    public var description: String {
        let where_ = pointer.tokens.isEmpty ? "/" : pointer.description
        return "\(where_): \(code): \(message)"
    }

    /// The problem as a JSON object `{pointer, code, message}`.
    public var jsonValue: JSONValue {
        ["pointer": .string(pointer.description), "code": .string(code.rawValue), "message": .string(message)]
    }
}
