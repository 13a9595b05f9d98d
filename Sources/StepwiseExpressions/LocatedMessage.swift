public import StepwiseJSON

/// A problem or warning about a value inside a document, with the JSON pointer of the string
/// concerned (e.g. `/blocks/0/params/greeting`).
///
/// ```swift
/// let compiled = TemplatedValue.compile(["a": "{{ nope.x }}"], at: JSONPointer(tokens: ["params"]))
/// compiled.problems.first?.pointer.description   // "/params/a"
/// ```
public struct LocatedMessage: Sendable, Hashable {
    /// Where the string sits in the document.
    public let pointer: JSONPointer
    /// What is wrong or worth a look.
    public let message: String

    /// Creates a message located at `pointer`.
    public init(pointer: JSONPointer, message: String) {
        self.pointer = pointer
        self.message = message
    }
}
