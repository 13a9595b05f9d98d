/// A compile error in an expression: what is wrong and where.
///
/// The position is a 0-based offset in Unicode scalars into the condition text as written, so
/// it still points at the right character when the text was a whole `{{ … }}` that was unwrapped.
///
/// ```swift
/// do {
///     _ = try Expression.compile("a ==")
/// } catch {
///     print(error)   // expression error at position 4: unexpected end of expression
/// }
/// ```
public struct ExpressionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 0-based Unicode-scalar offset into the condition text as written.
    public let position: Int
    /// What is wrong, e.g. `unknown function 'foo'`.
    public let message: String

    /// Creates an error at `position` with `message`.
    public init(position: Int, message: String) {
        self.position = position
        self.message = message
    }

    /// `expression error at position N: <message>` (SEMANTICS §3.8).
    public var description: String { "expression error at position \(position): \(message)" }
}
