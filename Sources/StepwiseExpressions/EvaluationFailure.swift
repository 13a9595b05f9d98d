/// A runtime error travelling through evaluation (SEMANTICS §3.8); surfaces as
/// ``EvaluationResult/error(_:)``.
struct EvaluationFailure: Error, Sendable, Hashable {
    /// The message; a function's error starts with the function's name.
    let message: String

    /// The cost budget ran out.
    static let costLimitExceeded = EvaluationFailure(message: "evaluation cost limit exceeded")
}
