/// A template problem: at load (§4.4, e.g. `unknown filter 'foo'`) or at render time (a failing
/// filter such as `base64_decode` on invalid input, a result over 4 MiB).
///
/// ```swift
/// do {
///     _ = try Template.compile("{{ data.name | shout }}")
/// } catch {
///     print(error)   // unknown filter 'shout' in {{ data.name | shout }}
/// }
/// ```
public struct TemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the root, filter or argument concerned.
    public let message: String

    /// Creates an error with `message`.
    public init(message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
